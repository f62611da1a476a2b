"""What a value handed to a delayed stage is, told where the kernel says it.

A value annotated with a dtype the kernel names itself (`tag_t = pl.DT_INT8`, `tag: tag_t =
...`) travels in a ctx field of that dtype's kind. The ring read such a name at module level
only: a kernel's own alias left the field's type unknown (PTO072 asked for the annotation that
was there, probe h110), and a module name of the same spelling typed the field by the module's
dtype, a field of integers for a kernel's float (refused as a difference the tool had made).
An entry of a struct array is named as one (probe h111)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, edited_kernel, kernel_text, refusal_of
from pto_transpile import transpile

KERNEL = Path(__file__).parents[1] / "soundness" / "kernels" / "local_dtype_alias_annotation.py"
ROWS = {"a": (160, 32), "out": (160, 32)}
ALIAS = "    tag_t = pl.DT_INT8\n"
BOUND = "        tag: tag_t = 100 + 100 * (i % 2)\n"


def _variant(tmp_path, module: str | None, alias: str, bound: str) -> Path:
    text = kernel_text(KERNEL)
    assert ALIAS in text and BOUND in text
    text = text.replace(ALIAS, alias).replace(BOUND, bound)
    if module is not None:
        text = text.replace("\nBLOCK = 32\n", f"\nBLOCK = 32\n{module}\n", 1)
    path = tmp_path / "kernel.py"
    path.write_text(text)
    return path


def test_a_kernels_own_dtype_alias_types_the_field():
    assert_proven_and_run(KERNEL, "kern", shapes=ROWS)


@pytest.mark.parametrize("module, alias, bound", [
    # the module's name is an integer dtype; the kernel's, of the same spelling, a float one
    ("tag_t = pl.DT_INT32", "    tag_t = pl.DT_FP32\n", "        tag: tag_t = (i % 2) * 0.5 - 0.25\n"),
    # the other way round
    ("tag_t = pl.DT_FP32", "    tag_t = pl.DT_INT16\n", "        tag: tag_t = 200 - 300 * (i % 2)\n"),
])
def test_the_kernels_binding_of_a_name_types_the_field_not_the_modules(tmp_path, module, alias, bound):
    assert_proven_and_run(_variant(tmp_path, module, alias, bound), "kern", shapes=ROWS)


def test_an_alias_bound_to_two_dtypes_is_said_untyped(tmp_path):
    path = _variant(tmp_path, None, "    tag_t = pl.DT_INT8\n    if a.shape[0] > 64:\n        tag_t = pl.DT_FP32\n",
                    BOUND)
    assert "whether it is an integer or a float cannot be told" in refusal_of(path)


ENTRY = Path(__file__).parents[1] / "soundness" / "kernels" / "struct_array_entry_handed_on.py"


def test_an_entry_of_a_struct_array_is_named_so_and_the_help_fixes_it(tmp_path):
    """`ent = arr[i % 2]` handed to a stage was said to be a number of unknown kind, with the help
    to annotate it `pl.DT_FP32`, which only moved the refusal (probe h111)."""
    message = refusal_of(ENTRY)
    assert "it is an entry of the struct array `arr`, a struct" in message, message
    text = kernel_text(ENTRY)
    entry = "        ent = arr[i % 2]\n        ent.a = (i % 3) * 0.5 + 0.25\n"
    assert entry in text
    declared = '    arr = pl.struct_array(2, "S", a=0.0)\n'
    text = text.replace(entry, "        ent.a = (i % 3) * 0.5 + 0.25\n").replace(
        declared, declared + "    ent = pl.struct(a=0.0)\n")
    path = tmp_path / "kernel.py"
    path.write_text(text)
    assert_proven_and_run(path, "kern", shapes=ROWS)


CONST = Path(__file__).parents[1] / "soundness" / "kernels" / "struct_field_const_dtype_by_name.py"
DECLARED = "    st = pl.struct(g=pl.const(0, tag_dt))\n"


def _const_variant(tmp_path, old: str, new: str) -> Path:
    return edited_kernel(tmp_path, CONST, old, new)


def test_a_struct_fields_dtype_named_by_the_kernel_types_its_ctx_field():
    """`pl.const(0, tag_dt)` of a `tag_dt = pl.DT_INT8` the kernel binds: the ctx field is int8
    as the struct's is, and the stage's `st.g + 100` wraps alike (probe h110: PTO072)."""
    assert_proven_and_run(CONST, "kern", shapes=ROWS)


def test_a_struct_fields_dtype_given_by_keyword_types_its_ctx_field(tmp_path):
    path = _const_variant(tmp_path, DECLARED, "    st = pl.struct(g=pl.const(0, dtype=pl.DT_INT8))\n")
    assert_proven_and_run(path, "kern", shapes=ROWS)


def test_a_dtype_name_bound_to_two_dtypes_types_no_ctx_field(tmp_path):
    path = _const_variant(tmp_path, "    tag_dt = pl.DT_INT8\n",
                          "    tag_dt = pl.DT_INT8\n    if a.shape[0] > 64:\n        tag_dt = pl.DT_INT16\n")
    assert "internal error" not in refusal_of(path)


def test_an_item_of_an_item_of_a_constant_picks_the_tile_where_the_stage_runs():
    """`sel = PICK[j % 2][0]` of a tuple of tuples, as the index of `bufs[sel]`: its kind was
    unknown, so it stayed behind in the written kernel, which picked the current iteration's tile
    for a delayed stage; the check refused it as the kernel's own GM writes differing (probe h101)."""
    path = Path(__file__).parent / "kernels" / "item_of_constant_item_picks_tile.py"
    assert "        sel = PICK[j % 2][0]\n" in kernel_text(path)
    for blocks in (1, 2):
        assert_proven_and_run(path, "kern", shapes=ROWS, block_dim=blocks)


def test_a_tile_pick_by_a_name_of_unknown_kind_the_loop_binds_is_named(tmp_path):
    """`bufs[sel]` of a `sel` whose kind the reader cannot tell: passed as written, the delayed
    stage would get the current iteration's tile; PTO054 names `sel`, as for `sel` passed alone."""
    path = Path(__file__).parent / "kernels" / "item_of_constant_item_picks_tile.py"
    text = kernel_text(path).replace("        sel = PICK[j % 2][0]\n", "        sel = PICKD.get(j % 2, 0)\n")
    result = transpile(text.replace("PICK = ((0,), (1,))\n", "PICKD = {0: 0, 1: 1}\n"), path="k.py")
    assert [(d.code, "`sel`" in d.message) for d in result.diagnostics if d.is_error] == [("PTO054", True)]


def test_a_struct_held_in_a_struct_field_is_named_and_the_help_works():
    """Probe h251: `st = pl.struct(inner=inner)` handed whole, its `st.inner.factor` set and read
    by the stages, was called a number whose type cannot be told, and the help to initialise
    `inner=0.0` made another program; the refusal names the struct, and passing it, as the help
    says, is proven and runs as the serial kernel."""
    from helpers import error_messages
    from sim_runtime import verify

    text = kernel_text(Path(__file__).parents[1] / "soundness" / "kernels" / "factor_in_struct.py")
    nested = [("    st.factor = factors[ki]", "    st.inner.factor = factors[ki]"),
              ("def scale_store(ki, sub_id, factor, out", "def scale_store(ki, sub_id, st, out"),
              ("pl.muls(y, c_vec, factor)", "pl.muls(y, c_vec, st.inner.factor)"),
              ("        st = pl.struct(factor=0.0)", "        inner = pl.struct(factor=0.0)\n"
                                                   "        st = pl.struct(inner=inner)"),
              ("scale_store(ki, sub_id, st.factor, out", "scale_store(ki, sub_id, st, out")]
    for old, new in nested:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (found,) = [d for d in transpile(text, path="k.py", preload=1).diagnostics if d.is_error]
    assert found.code == "PTO072" and "it is `inner`, a struct held in a field of `st`" in found.message, found.message
    assert found.hint.startswith("Pass `inner` to the stages as an argument of its own"), found.hint
    passed = text
    for old, new in [("def read_factor(ki, factors, st):", "def read_factor(ki, factors, inner):"),
                     ("    st.inner.factor = factors[ki]", "    inner.factor = factors[ki]"),
                     ("def scale_store(ki, sub_id, st, out", "def scale_store(ki, sub_id, inner, out"),
                     ("pl.muls(y, c_vec, st.inner.factor)", "pl.muls(y, c_vec, inner.factor)"),
                     ("        st = pl.struct(inner=inner)\n", ""),
                     ("read_factor(ki, factors, st)", "read_factor(ki, factors, inner)"),
                     ("scale_store(ki, sub_id, st, out", "scale_store(ki, sub_id, inner, out")]:
        assert passed.count(old) == 1, old
        passed = passed.replace(old, new)
    result = transpile(passed, path="k.py", preload=1)
    assert error_messages(result) == []
    report = verify(passed, result.code, "kernel", path="k.py")
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
