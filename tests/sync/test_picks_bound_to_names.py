"""A handle the loop body picks by a value of the iteration and binds to a name (`dst = (even,
odd)[i % 2]`, `bias = bias_db[i % 2]`), the name handed to a delayed stage: the name holds a
later task's pick when the stage runs, so the written kernel passes the pick itself, its index
carried in the task's ctx entry. It passed the name, and the check refused the kernel with
helps that did not lead to the fix (probe h112). A `pl.make_tuple` the body makes is named as
such, with a help that fixes it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import assert_proven_and_run, edited, kernel_text, refusal_of
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
SHAPES = {"a": (160, 32), "even": (160, 32), "odd": (160, 32)}


@pytest.mark.parametrize("name, pick", [
    ("h112_tensor_pick_bound_to_name", r"finish\(.*, \(even, odd\)\[_pl_ctx_neg\d\._pl_arg_finish_2_0\],"),
    ("h112_tile_slot_pick_bound_to_name", r"finish\(.*, bias_db\[_pl_ctx_neg\d\._pl_arg_finish_3_0\],"),
])
@pytest.mark.parametrize("preload", [1, 2])
def test_the_pick_is_passed_with_its_tasks_index(name, pick, preload):
    result = transpile(kernel_text(KERNELS / f"{name}.py"), path="k.py", preload=preload)
    assert result.ok, [d.message for d in result.diagnostics]
    assert re.search(pick, result.code), result.code


@pytest.mark.parametrize("name", ["h112_tensor_pick_bound_to_name", "h112_tile_slot_pick_bound_to_name"])
@pytest.mark.parametrize("rows", [160, 64])
def test_the_kernel_runs_as_the_serial_one(name, rows):
    shapes = {k: (rows, 32) for k in SHAPES}
    assert_proven_and_run(KERNELS / f"{name}.py", "kern", shapes=shapes)


def test_a_pick_from_a_handle_the_body_rebinds_is_not_passed_for_the_name(tmp_path):
    """`bias_db` bound again in the body: the pick would name another group at the delayed call."""
    text = kernel_text(KERNELS / "h112_tile_slot_pick_bound_to_name.py")
    bound = "        bias = bias_db[i % 2]\n"
    assert bound in text
    result = transpile(text.replace(bound, "        bias_db = (bias_db[1], bias_db[0])\n" + bound), path="k.py")
    assert "bias_db[_pl_ctx" not in (result.code or "")


def test_a_tuple_made_in_the_body_is_named_and_the_help_fixes_it(tmp_path):
    path = KERNELS / "h112_make_tuple_made_per_iteration.py"
    assert "it is a `pl.make_tuple` the loop body makes" in refusal_of(path)
    text = kernel_text(path)
    made = "        row_cfg = pl.make_tuple(bias=0.25 * (i % 2))"
    assert made in text
    i = text.index("    for i in pl.range(")
    text = text[:i] + "    row_cfg = pl.struct(bias=0.0)\n" + text[i:]
    fixed = tmp_path / "kernel.py"
    fixed.write_text(text.replace(made, "        row_cfg.bias = 0.25 * (i % 2)"))
    assert_proven_and_run(fixed, "kern", shapes={"a": (160, 32), "out": (160, 32)})


def test_a_pick_whose_index_the_body_steps_after_it_is_named_with_the_fix():
    """`bias = bias_db[j % 2]` then `j = j + 1`: the ctx entry is filled after the body's
    statements, where `j % 2` is the next pick's; the name is not replaced by the pick, and
    passed by its name the stage would get a later task's: PTO072 says so (probe h113)."""
    text = kernel_text(KERNELS / "h112_tile_slot_pick_bound_to_name.py")
    i = text.index("    for i in pl.range(")
    text = (text[:i] + "    j = 0\n" + text[i:]).replace(
        "        bias = bias_db[i % 2]\n", "        bias = bias_db[j % 2]\n        j = j + 1\n")
    errors = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO072"] and "the loop body chooses per iteration" in errors[0].message


def test_a_handle_chosen_by_an_if_in_the_body_is_named_with_the_fix():
    text = kernel_text(KERNELS / "h112_tensor_pick_bound_to_name.py")
    bound = "        dst = (even, odd)[i % 2]"
    assert bound in text
    text = text.replace(bound, "        dst = even\n        if i % 2 == 1:\n            dst = odd\n        pass")
    errors = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO072"] and "`(even, odd)[i % 2]`" in errors[0].hint


def test_an_annotated_pick_is_passed_with_its_tasks_index(tmp_path):
    text = kernel_text(KERNELS / "h112_tensor_pick_bound_to_name.py").replace(
        "        dst = (even, odd)[i % 2]",
        "        dst: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32] = (even, odd)[i % 2]")
    path = tmp_path / "kernel.py"
    path.write_text(text)
    assert_proven_and_run(path, "kern", shapes=SHAPES)


def test_a_keyword_ending_like_a_part_gets_a_field_of_its_own(tmp_path):
    """`dst=dst` (its index in `_pl_arg_finish_dst_0`) beside `dst_0=...`: one field name for two
    values, one of them dropped (probe h113)."""
    text = kernel_text(KERNELS / "h112_tensor_pick_bound_to_name.py")
    assert "def finish(i, sub_id, dst, proj_vec_db, res_db):" in text
    text = text.replace("def finish(i, sub_id, dst, proj_vec_db, res_db):",
                        "def finish(i, sub_id, proj_vec_db, res_db, dst=None, dst_0=0.5):")
    text = text.replace("            finish(i, sub_id, dst, proj_vec_db, res_db)",
                        "            finish(i, sub_id, proj_vec_db, res_db, dst=dst, dst_0=0.25 * (i % 3))")
    text = text.replace("    pl.muls(res, proj, 0.5)", "    pl.muls(res, proj, dst_0)")
    assert "pl.muls(res, proj, dst_0)" in text
    path = tmp_path / "kernel.py"
    path.write_text(text)
    assert_proven_and_run(path, "kern", shapes=SHAPES)


def test_a_pick_after_the_stages_is_not_passed_for_the_name():
    """`bias = bias_db[i % 2]` after the stage calls is the next iteration's pick: passed as the
    pick, the stage of iteration i would pick with `i`, where the serial kernel's uses `i - 1`."""
    text = kernel_text(KERNELS / "h112_tile_slot_pick_bound_to_name.py")
    text = text.replace("        bias = bias_db[i % 2]\n", "")
    loop = text.index("    for i in pl.range(")
    text = text[:loop] + "    bias = bias_db[1]\n" + text[loop:]
    call = text.index("            finish(")
    end = text.index("\n", call) + 1
    text = text[:end] + "        bias = bias_db[i % 2]\n" + text[end:]
    result = transpile(text, path="k.py", _skip_rules=["PTO061"])
    assert "bias_db[_pl_ctx" not in (result.code or "")
    assert [d.code for d in result.diagnostics if d.is_error] == ["PTO072"]


@pytest.mark.parametrize("preload", [1, 2])
def test_a_pick_bound_in_a_section_before_the_stages_is_passed_with_its_tasks_index(tmp_path, preload):
    """`with pl.section_vector(): bias = bias_db[i % 2]` at the top of the body, where vector-only
    code is written (probe h113: passed by its name, refused as tile state kept across iterations)."""
    text = kernel_text(KERNELS / "h112_tile_slot_pick_bound_to_name.py").replace(
        "        bias = bias_db[i % 2]\n", "        with pl.section_vector():\n            bias = bias_db[i % 2]\n")
    text = text.replace("pipeline=pl.pipeline.PipelineConfig(preload=1)",
                        f"pipeline=pl.pipeline.PipelineConfig(preload={preload})")
    assert "            bias = bias_db[i % 2]\n" in text and f"preload={preload}" in text
    path = tmp_path / "kernel.py"
    path.write_text(text)
    assert_proven_and_run(path, "kern", shapes={k: (96, 32) for k in SHAPES})


@pytest.mark.parametrize("preload", [1, 2])
def test_a_view_of_a_bound_pick_is_the_view_of_the_pick(preload):
    """`bias = bias_db[i % 2]` handed as `bias[0:HALF, :]` (probe h113: passed as written, refused as
    tile state kept across iterations): the view of the pick itself, as if written in the call."""
    _passed_as_pick_and_run("h113_bound_pick_passed_as_view",
                            r"bias_db\[_pl_ctx_neg\d\._pl_arg_finish_3_0\]\[0:HALF, :\]", preload)


@pytest.mark.parametrize("binding", [
    "        bias = bias_db[0]\n        if i % 2 == 1:\n            bias = bias_db[1]\n",
    "        k = i % 2\n        bias = bias_db[k]\n        k = 0\n",
])
def test_a_view_of_a_handle_chosen_in_the_body_is_named_with_the_fix(binding):
    """A view of a name the body binds twice, or of a pick whose index it steps after: PTO072 naming
    the handle chosen per iteration, as for the name itself."""
    text = kernel_text(KERNELS / "h113_bound_pick_passed_as_view.py")
    assert "        bias = bias_db[i % 2]\n" in text
    result = transpile(text.replace("        bias = bias_db[i % 2]\n", binding), path="k.py")
    errors = [d for d in result.diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO072"], [d.message for d in errors]
    assert "the loop body chooses per iteration" in errors[0].message and "`bias`" in errors[0].message


@pytest.mark.parametrize("preload", [1, 2])
def test_a_pick_from_a_tuple_the_body_names_is_the_pick_of_the_tuple(preload):
    """`pair = (even, odd)`, `dst = pair[i % 2]` (probe h113: PTO054, then helps that led to other
    refusals): the tuple holds the same handles in every iteration, so the pick is passed as
    `(even, odd)[i % 2]`, as if written in place."""
    _passed_as_pick_and_run("h113_pick_from_tuple_named_in_body",
                            r"finish\(.*, \(even, odd\)\[_pl_ctx_neg\d\._pl_arg_finish_2_0\],", preload)


@pytest.mark.parametrize("old, new", [
    ("        pair = (even, odd)\n",
     "        pair = (even, odd)\n        if i == 3:\n            pair = (odd, even)\n"),
    ("        pair = (even, odd)\n", "        first = even\n        pair = (first, odd)\n"),
])
def test_a_tuple_the_body_changes_is_not_taken_for_its_display(old, new):
    """Bound twice, or holding a name the body binds: the name holds another tuple in some task."""
    text = kernel_text(KERNELS / "h113_pick_from_tuple_named_in_body.py")
    assert old in text
    result = transpile(text.replace(old, new), path="k.py")
    assert "(even, odd)[_pl_ctx" not in (result.code or "")
    assert [d.code for d in result.diagnostics if d.is_error] == ["PTO072"], [d.message for d in result.diagnostics]


def _passed_as_pick_and_run(name: str, pick: str, preload: int) -> None:
    """Test kernel `name` is accepted at `preload`, its stage call picks as `pick` (a regex) with the
    task's index, and it runs as the serial kernel on the emulator."""
    text = kernel_text(KERNELS / f"{name}.py")
    result = transpile(text, path="k.py", preload=preload)
    assert result.ok, [d.message for d in result.diagnostics]
    assert re.search(pick, result.code), result.code
    report = verify(text, result.code, "kern", shapes={k: (96, 32) for k in SHAPES})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("name", ["pick_of_display_changed_in_place", "pick_index_struct_counter_stepped_after",
                                  "pick_list_reversed_by_unbound_method"])
def test_a_pick_whose_handles_or_index_the_body_changes_is_named_with_the_fix(name):
    """`pair = [even, odd]` reversed in place (`pair.reverse()`, `list.reverse(outs)`), or an index
    read from a struct field the body steps after the pick (`st.k += 1`): the pick, read again where
    the delayed stage runs, would give another handle (probe h115: passed as the pick, or PTO054,
    and refused blaming the kernel); PTO072 names the choice with the help that fixes it."""
    result = transpile(kernel_text(KERNELS / f"h115_{name}.py"), path="k.py")
    errors = [d for d in result.diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO072"], [d.message for d in errors]
    assert "the loop body chooses per iteration" in errors[0].message, errors[0].message


def test_a_pick_from_names_the_body_rebinds_names_them():
    """`dst = (even, odd)[i % 2]` with `even, odd = odd, even` after the last stage: the help asked
    for the pick the body already made (probe h131); it names the rebinding now."""
    last = "            finish(i, sub_id, dst, proj_vec_db, res_db)\n"
    text = edited(kernel_text(KERNELS / "h112_tensor_pick_bound_to_name.py"),
                  [(last, last + "        even, odd = odd, even\n")])
    errors = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO072"], errors
    assert "it is picked from `even`, `odd`, which the loop body rebinds" in errors[0].message, errors[0].message
    assert errors[0].hint.startswith("Pick among handles the loop body does not rebind"), errors[0].hint
