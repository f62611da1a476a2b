"""A run-time `if` around a whole pipeline loop (`if flag > 0:`, an optional pass chosen by a
launch argument) decides whether every stage of the loop runs or none: PTO007, made for an `if`
that may skip a producer and leave its consumer waiting, refused it as a branch around a stage
(probe h122). It is transpiled now, the fill and the drain inside the branch, and the soundness
check follows the test as any other: at each value of the parameter, and a test that sends the
cores of a block different ways deadlocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
LOOP = """    for i in pl.range(0, n_blocks):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, out, proj_vec_db, res_db)
"""
PARAMS = ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
          "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    flag: pl.DT_INT32,\n")


def _under(test: str, extra: str = "") -> str:
    inner = "".join("    " + line + "\n" for line in LOOP.splitlines())
    return edited(ROWS, [PARAMS, (LOOP, f"    if {test}:\n{extra}{inner}")])


@pytest.mark.parametrize("preload", [1, 2])
def test_a_whole_loop_under_a_test_of_a_parameter_is_proven_and_runs_as_the_serial_kernel(preload):
    text = _under("flag > 0")
    result = transpile(text, path="k.py", preload=preload)
    assert error_messages(result) == []
    for flag in (0, 1, 3):
        for rows in (32, 160):
            report = verify(text, result.code, "kern", path="k.py", shapes={"a": (rows, 32), "out": (rows, 32)},
                            scalars={"flag": flag})
            assert [r.verdict for r in report.rows] == ["ok", "ok"], (flag, rows, report.rows[-1].message)


def test_a_test_that_sends_the_cores_of_a_block_apart_deadlocks():
    (message,) = error_messages(transpile(_under("pl.get_subblock_idx() == 0"), path="k.py"))
    assert "deadlocks" in message, message


def test_a_stage_called_beside_the_loop_under_the_test_is_still_refused():
    text = _under("flag > 0", extra="        with pl.section_vector():\n"
                                    "            finish(0, sub_id, out, proj_vec_db, res_db)\n")
    assert any("branch condition `flag > 0` wraps a stage call" in m for m in error_messages(transpile(text,
                                                                                                      path="k.py")))


@pytest.mark.parametrize("test", ["flag == 1", "flag > 5"])
def test_a_loop_under_a_test_the_discovery_run_does_not_take_is_found_and_proven(test):
    """Every integer parameter is 3 in the run that finds the loops of run-time trip count: the loop
    under `flag == 1` is run there too, and the runs at the values that take the branch count
    through it (probe h123: it was refused, blaming a trip count already in the form the help asked
    for)."""
    text = _under(test)
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    for flag in (0, 1, 6):
        report = verify(text, result.code, "kern", path="k.py", shapes={"a": (96, 32), "out": (96, 32)},
                        scalars={"flag": flag})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (flag, report.rows[-1].message)


@pytest.mark.parametrize("test", ["flag == 1", "flag == 7", "flag > 11"])
def test_a_defect_under_such_a_test_is_refused(test):
    """residue_defect.py's loop (wrong exactly when `n % 3 == 0`) under the test: shown at a value
    of `flag` that takes the branch."""
    base = (Path(__file__).parent / "kernels" / "residue_defect.py").read_text(encoding="utf-8")
    loop = base[base.index("    for ki in pl.range(0, n):\n"):]
    loop = loop[:loop.index("            scale_store(ki, sub_id, st.scale, out, c_vec_db, y_db)\n")
                + len("            scale_store(ki, sub_id, st.scale, out, c_vec_db, y_db)\n")]
    inner = "".join("    " + line + "\n" for line in loop.splitlines())
    text = edited(base, [(loop, f"    if {test}:\n{inner}"),
                         ("    n: pl.DT_INT32,\n", "    n: pl.DT_INT32,\n    flag: pl.DT_INT32,\n")])
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "receives `scale` = 2.0 in the serial kernel but 1.0 in the pipelined one (shown with flag=" in message


def _inside(text: str, loop: str, test: str) -> str:
    return edited(text, [(loop, f"    if {test}:\n" + "".join("    " + line + "\n" for line in loop.splitlines()))])


def test_a_whole_loop_under_a_test_of_a_value_read_from_gm_names_the_form_that_is_proven():
    """A flag read from GM is data the run cannot decide a test of: the refusal named no test and
    no fix; it names both now, and the fix is the kernel proven above."""
    text = edited(_inside(ROWS, LOOP, "pl.getval(flags, 0) == 1"),
                  [(PARAMS[0], PARAMS[0] + "    flags: pl.Tensor[[8], pl.DT_INT32],\n")])
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "stage `project` is called under `if pl.getval(flags, 0) == 1:`, a test the check cannot decide for " \
           "every run: pass the value it tests as a scalar parameter (or a tiling-key field)" in message, message


TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
TILED_LOOP = """    for i in pl.range(core_id, n_blocks, num_cores):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)
"""


def test_a_whole_loop_under_a_test_of_the_block_names_the_early_return_that_is_proven():
    """`if core_id < n_blocks:` around a per-core loop (is there work for this block?): the
    refusal names the early return, which is proven and runs as the serial kernel, a block with
    no task among them."""
    (message,) = error_messages(transpile(_inside(TILED, TILED_LOOP, "core_id < n_blocks"), path="k.py"))
    assert "stage `project` is called under `if core_id < n_blocks:`, a test the check cannot decide for every run: " \
           "where it tests whether this block has work, around the whole pipeline loop, return early before the " \
           "loop instead, on one comparison of the block index (`if core_id >= n_blocks: return`)" in message, message
    text = edited(TILED, [(TILED_LOOP, "    if core_id >= n_blocks:\n        return\n" + TILED_LOOP)])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    report = verify(text, result.code, "tiled_scale_kernel", path="k.py", block_dim=4,
                    shapes={"a": (96, 32), "out": (96, 32)}, scalars={"scale": 0.5, "ApplyRelu": 1})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
