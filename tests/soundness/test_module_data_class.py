"""Tiling data in a data class instance made at module level (`TILING = GemmTiling()`, `@dataclass
class GemmTiling: rows: int = BLOCK`) is a compile-time constant: its fields fold where a module
constant does (`i * TILING.rows` as a GM offset). It was "not a compile-time constant (function calls
are not compile-time constants)", so every store through it was placed anywhere in the tensor and
refused as a race. A kernel that sets a field, by any route, is refused; one the module changes is
unknown as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
GEMM = KERNELS / "gemm_tiling_dataclass.py"
SHAPES = {"a": (160, 96), "b": (96, 32), "out": (160, 32)}
BODY = "    m_tiles = a.shape[0] // BLOCK\n"


def _errors(text: str) -> list[str]:
    return [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]


@pytest.mark.parametrize("preload, relu, block_dim", [(1, 1, 3), (2, 0, 2)])
def test_the_kernel_is_proven_and_runs(preload, relu, block_dim):
    text = kernel_text(GEMM)
    result = transpile(text, path="k.py", preload=preload)
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(text, result.code, "gemm_epi", shapes=SHAPES, block_dim=block_dim,
                    scalars={"alpha": 1.5, "WITH_RELU": relu})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("made", ["GemmTiling(0.25, BLOCK)", "GemmTiling(rows=BLOCK, scale=0.25)"])
def test_fields_given_by_position_or_name_fold(made):
    assert _errors(edited(kernel_text(GEMM), [("TILING = GemmTiling()", f"TILING = {made}")])) == []


@pytest.mark.parametrize("change", [
    "    TILING.rows = 64\n", '    setattr(TILING, "rows", 64)\n', '    object.__setattr__(TILING, "rows", 64)\n'])
def test_a_kernel_setting_a_field_is_refused(change):
    errors = _errors(edited(kernel_text(GEMM), [(BODY, BODY + change)]))
    assert errors and any(words in errors[0] for words in (
        "the kernel changes `TILING`, and `TILING` is a list, dict or object of the module",
        "sets a field of `GemmTiling` made at module level", "cannot tell what")), errors


@pytest.mark.parametrize("edit", [
    ("TILING = GemmTiling()\n", "TILING = GemmTiling()\nTILING.rows = 16\n"),
    ("class EpiKey:", "def configure():\n    TILING.rows = 16\n\n\nclass EpiKey:"),
    ("class EpiKey:", "ALIAS = TILING\nALIAS.rows = 16\n\n\nclass EpiKey:"),
])
def test_an_instance_the_module_may_change_is_no_constant(edit):
    text = edited(kernel_text(GEMM), [("@dataclass(frozen=True)", "@dataclass"), edit])
    errors = _errors(text)
    assert errors and "`TILING` is not a compile-time constant" in errors[0], errors


def test_tiling_data_handed_as_a_parameter_is_known_only_at_run_time():
    """The same class as a kernel parameter (`tiling: GemmTiling`): its fields are the host's, so
    `i * tiling.rows` may place two tasks' rows on one another; the refusal quotes the offsets."""
    text = edited(kernel_text(GEMM).replace("TILING.", "tiling."), [
        ("TILING = GemmTiling()\n", ""),
        ("def epilogue(i, sub_id, out, alpha,", "def epilogue(i, sub_id, out, alpha, tiling,"),
        ("            epilogue(i, sub_id, out, alpha,", "            epilogue(i, sub_id, out, alpha, tiling,"),
        ("    alpha: pl.DT_FP32,\n):", "    alpha: pl.DT_FP32,\n    tiling: GemmTiling,\n):")])
    errors = _errors(text)
    assert errors and "its offsets `[i * tiling.rows + sub_id * HALF, 0]` are not a value the check computes" \
        in errors[0], errors


def test_a_field_in_the_kernels_annotations_and_pipeline_config_folds():
    """A tensor sized by tiling data (`pl.Tensor[[pl.DYNAMIC, TILING.cols], ...]`) and the preload
    taken from it: a field in a display is a number the display holds, not the instance (probe
    h115: "the `def` of `chain` reads `TILING` ... and the module changes it after the `def`")."""
    text = edited(kernel_text(KERNELS / "h115_dataclass_control.py"), [
        ("    scale: float = 0.5\n", "    scale: float = 0.5\n    cols: int = BLOCK\n    preload: int = 1\n"),
        ("    x: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
         "    x: pl.Tensor[[pl.DYNAMIC, TILING.cols], pl.DT_FP32],\n"
         "    w: pl.Tensor[[TILING.cols, TILING.cols], pl.DT_FP32],\n"),
        ("PipelineConfig(preload=1)", "PipelineConfig(preload=TILING.preload)"),
    ])
    result = transpile(text, path="k.py")
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(text, result.code, "chain", shapes={"x": (256, 32)}, block_dim=2)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("held", ["[TILING]", "(TILING, 1)", "{TILING.cols: TILING}"])
def test_the_instance_itself_in_a_display_is_still_a_use(held):
    text = edited(kernel_text(KERNELS / "h115_dataclass_control.py"), [
        ("TILING = Tiling(stride=2 * BLOCK)\n", f"TILING = Tiling(stride=2 * BLOCK)\nHELD = {held}\n")])
    assert any("`TILING` is not a compile-time constant" in m for m in _errors(text)), _errors(text)


@pytest.mark.parametrize("read", ['getattr(TILING, "stride")', 'getattr(TILING, "stride", 1)',
                                  'getattr(TILING, "nope", 2 * BLOCK)'])
def test_a_field_read_by_getattr_folds(read):
    """`getattr(TILING, "stride")` is `TILING.stride` (probe h115: refused as a use that may change
    the instance, "a call is given it"); a field the class lacks gives the default."""
    text = kernel_text(KERNELS / "h115_dataclass_control.py").replace("i * TILING.stride", f"i * {read}")
    result = transpile(text, path="k.py")
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(text, result.code, "chain", shapes={"x": (256, 32)}, block_dim=2)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("read, words", [
    ('getattr(TILING, "nope", BLOCK)', "`x` is written in a loop"),  # the default: 32 rows, the stages overlap
    ('getattr(TILING, STRIDE)', "`TILING` is not a compile-time constant"),  # a name, not a literal
    ('getattr(TILING, "nope")', "reads a field `Tiling` does not have"),
])
def test_other_reads_by_getattr_are_followed_or_refused(read, words):
    text = kernel_text(KERNELS / "h115_dataclass_control.py").replace("i * TILING.stride", f"i * {read}")
    text = text.replace("TILING = Tiling(", 'STRIDE = "stride"\nTILING = Tiling(', 1)
    assert any(words in m for m in _errors(text)), _errors(text)
