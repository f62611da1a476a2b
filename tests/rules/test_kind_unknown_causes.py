"""PTO054 names what made a stage argument's kind unknown (probe h74). Both kernels below were
refused with "cannot tell whether `sh` ... is a scalar or a handle" and the help to bind `sh`
from a literal, though `sh` is an int bound from literals: what the tool could not follow was
an item of a tuple of numbers picked by a parameter (`(0, 0, 0, 0, 1, 0)[d]`, which the check
cannot prove for every `d`), or the kind of `tiling`, annotated with a string (`"TD"`) or a
union (`TD | None`). The message now names the pick or the parameter, and the help says what
to write there."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, kernel_text
from pto_transpile import codes, transpile
from sim_runtime.verify import verify

BASE = (Path(__file__).parents[1] / "soundness" / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
LOOP = "    for i in pl.range(0, n_blocks):\n"
CALL = "            finish(i, sub_id, out, proj_vec_db, res_db)\n"
PARAMS = "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"
#: the vector stage scales by `sh`, a number the loop body computes
SCALED = edited(BASE, [
    ("def finish(i, sub_id, out, proj_vec_db, res_db):", "def finish(i, sh, sub_id, out, proj_vec_db, res_db):"),
    ("    pl.muls(res, proj, 0.5)\n", "    pl.muls(res, proj, sh)\n"),
    (CALL, CALL.replace("finish(i,", "finish(i, sh,")),
])
#: `sh` an item of a tuple of numbers picked by an int parameter
PICK = "        sh = (0.5, 0.5, 0.5, 0.5, 2.0, 0.5)[d]"
ITEM = edited(SCALED, [(PARAMS, PARAMS + "    d: int,\n"), (LOOP, LOOP + PICK + "\n")])
#: `sh` computed from a field of the tiling data
TILING = edited(SCALED, [
    ("import pypto_pro.language as pl\n",
     "from dataclasses import dataclass\n\nimport pypto_pro.language as pl\n\n\n@dataclass\nclass TD:\n    k: int\n"),
    (PARAMS, PARAMS + "    tiling: TD,\n"),
    (LOOP, LOOP + "        sh = 2.0 if tiling.k > 1 else 0.5\n"),
])
SHAPES = {"a": (96, 32), "out": (96, 32)}


def _error(text: str):
    [d] = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.ARGUMENT_KIND_UNKNOWN, d.message
    return d


def _runs_as_the_serial_kernel(text: str, scalars: dict) -> None:
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    report = verify(text, result.code, "kern", path="k.py", shapes=SHAPES, scalars=scalars)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_an_item_picked_by_a_parameter_is_named_with_the_tests_to_write_instead():
    d = _error(ITEM)
    assert d.message == ("`sh` (passed to stage `finish`) is an item of a tuple of numbers picked by a value of the "
                         "run (`(0.5, 0.5, 0.5, 0.5, 2.0, 0.5)[d]`): the check does not follow which item such a pick "
                         "gives, so it cannot prove the kernel for every value of `d`"), d.message
    assert d.hint.startswith("Compute `sh` from `d` with arithmetic or tests (`2.0 if d == 4 else 0.5`)"), d.hint
    assert [r.line for r in d.related] == [ITEM.splitlines().index(PICK) + 1]


@pytest.mark.parametrize("d", [1, 4])
def test_the_item_help_applied_gives_a_proven_kernel_that_runs_as_the_serial_one(d):
    applied = edited(ITEM, [("(0.5, 0.5, 0.5, 0.5, 2.0, 0.5)[d]", "2.0 if d == 4 else 0.5")])
    _runs_as_the_serial_kernel(applied, {"d": d})


@pytest.mark.parametrize("annotation", ['"TD"', "TD | None"])
def test_a_parameter_whose_annotation_is_not_read_is_named_with_the_annotation_to_write(annotation):
    d = _error(edited(TILING, [("    tiling: TD,\n", f"    tiling: {annotation},\n")]))
    assert d.message.endswith(f"it is computed from parameter `tiling`, which is annotated `{annotation}`, which "
                              "the tool does not read"), d.message
    assert d.hint.startswith("Annotate `tiling` with what it holds, written as the class or type itself: "
                             "`tiling: TD`"), d.hint


def test_the_parameter_help_applied_gives_a_proven_kernel_that_runs_as_the_serial_one():
    _runs_as_the_serial_kernel(TILING, {"k": 2})


def test_a_local_annotated_int_is_a_scalar():
    """`sh: float = (0.5, 2.0)[sub_id]`, a number per vector core, was PTO054 with the help to
    annotate it: the annotation of a local name was not read (probe h92)."""
    annotated = edited(SCALED, [(LOOP, "    with pl.section_vector():\n        sh: float = (0.5, 2.0)[sub_id]\n"
                                       + LOOP)])
    result = transpile(annotated, path="k.py", preload=1)
    assert [d.message for d in result.diagnostics] == [] and result.code is not None
    report = verify(annotated, result.code, "kern", path="k.py", shapes=SHAPES)
    assert [row.verdict for row in report.rows] == ["ok", "ok"]
    unannotated = annotated.replace("sh: float = ", "sh = ")
    assert codes.ARGUMENT_KIND_UNKNOWN in [d.code for d in transpile(unannotated, path="k.py", preload=1).diagnostics]


def test_a_tile_picked_in_the_loop_around_is_named_a_handle_with_the_pick_to_pass():
    """Probe h122: `bias = biases[h % 2]` in the outer loop, `bias` handed to a stage: the help asked
    for a dtype annotation, which the check refuses (a tile in a field of numbers)."""
    text = kernel_text(Path(__file__).parents[1] / "soundness" / "kernels" / "h122_outer_tile_pick.py")
    d = _error(text)
    assert d.message == ("`bias` (passed to stage `scale_store`) is a tile or tensor picked by a value of the run "
                         "(`biases[h % 2]`): a handle, which no ctx field carries to a delayed stage under a name of "
                         "its own"), d.message
    assert d.hint.startswith("Pass the pick itself in the stage call (`biases[h % 2]` as the argument)"), d.hint
    fixed = edited(text, [("    scale_store(ki, h, sub_id, out, bias, c_vec_db, y_db)",
                           "    scale_store(ki, h, sub_id, out, biases[h % 2], c_vec_db, y_db)")])
    result = transpile(fixed, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    report = verify(fixed, result.code, "kernel", path="k.py")
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


RULE_KERNELS = Path(__file__).parent / "kernels"


def test_a_group_made_by_a_helper_is_told_to_be_made_in_the_kernel():
    """A cross-core tile group made by a function of the file (`make_vec_group(...)`, returning
    `pl.make_tile_group(...)`): the help asked for a dtype annotation, which then typed a ctx field of
    numbers for a tile group (probe h241: forced through, it raced on UB)."""
    d = [d for d in transpile(kernel_text(RULE_KERNELS / "h241_group_from_helper.py"), path="k.py").diagnostics
         if d.is_error][0]
    assert d.code == codes.ARGUMENT_KIND_UNKNOWN, d.message
    assert "it is bound from `make_vec_group(0x0, [0, 1])`, a call of the file's function `make_vec_group`" \
        in d.message, d.message
    assert d.hint.startswith("Make it in the kernel itself, calling `pl.make_tile_group(...)` there"), d.hint
    assert "DT_FP32" not in d.hint, d.hint


def test_a_list_argument_is_told_to_pass_its_item():
    text = kernel_text(RULE_KERNELS / "h241_list_argument.py")
    d = _error(text)
    assert d.message == "`box` (passed to stage `scale_store`) is a list (`[0.0]`), which no ctx field carries to a " \
                        "delayed stage", d.message
    assert "annotated with its dtype (`x: pl.DT_FP32 = box[i]`, with the index or key the stage reads)" in d.hint, \
        d.hint
    read = "        box[0] = factors[ki]\n"
    fixed = edited(text, [(read, read + "        x: pl.DT_FP32 = box[0]\n"),
                          ("            scale_store(ki, sub_id, box,", "            scale_store(ki, sub_id, x,"),
                          ("    pl.muls(y, c_vec, box[0])\n", "    pl.muls(y, c_vec, box)\n")])
    assert [d.message for d in transpile(fixed, path="k.py").diagnostics if d.is_error] == []


def test_a_group_a_helper_binds_then_returns_is_told_to_be_made_in_the_kernel():
    """`g = pl.make_tile_group(...); return g`, and a tuple of groups unpacked: the help for a number
    was given, whose annotation typed a ctx field of numbers for a tile group (probe h245)."""
    text = edited(kernel_text(RULE_KERNELS / "h241_group_from_helper.py"),
                  [("    return pl.make_tile_group(\n", "    g = pl.make_tile_group(\n"),
                   ("        bwd_ids=[2, 3],\n    )\n", "        bwd_ids=[2, 3],\n    )\n    return g\n")])
    d = [d for d in transpile(text, path="k.py").diagnostics if d.is_error][0]
    assert d.hint.startswith("Make it in the kernel itself, calling `pl.make_tile_group(...)` there"), d.hint


def test_a_tuple_argument_is_named_as_one():
    text = edited(kernel_text(RULE_KERNELS / "h241_list_argument.py"), [("    box = [0.0]\n", "    box = (0.0,)\n"),
                                                                        ("        box[0] = factors[ki]\n", "")])
    assert _error(text).message.startswith("`box` (passed to stage `scale_store`) is a tuple (`(0.0,)`)")
