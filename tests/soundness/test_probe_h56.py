"""Kernels a hostile probe of the day's new rules found, each written as edits of a kernel of the
repository: three accepted and wrong (a barrier under `if bool(range(core_id)):`, a stage test
`if not bool(range(ki, n - 1)):` read as always false, a helper rebinding a module name with
`global` that a stage or a loop's end reads), two valid kernels refused (one more
atomic add by block 0 alone; a loop end the body deletes, whose validity test then failed),
and a `match` statement that crashed a rule."""

from __future__ import annotations

from pathlib import Path

import pytest

import skeleton as ex
from helpers import ROOT, edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
TILED = (ROOT / "examples" / "tiled_scale.py").read_text()
AFTER_LOOP = "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"


def test_a_barrier_under_the_truth_of_a_range_of_the_block_index_is_refused():
    text = edited(TILED, [(AFTER_LOOP, AFTER_LOOP + "    if bool(range(core_id)):\n        pl.system.sync_all()\n")])
    errors = error_messages(transpile(text, path="barrier.py"))
    words = "a test that may go another way on another block or on the other vector core of a block"
    assert any(words in e for e in errors), errors


def test_the_truth_of_a_range_of_the_loop_variable_is_not_taken_as_settled():
    # `not bool(range(ki, n - 1))` holds in the last iteration only: not decided as always false
    text = edited((KERNELS / "residue_defect.py").read_text(),
                  [("    if ki == n - 1 and ki % 3 == 2:\n", "    if not bool(range(ki, n - 1)):\n")])
    assert error_messages(transpile(text, path="range_truth.py"))


@pytest.mark.parametrize("what", ["stage", "end"])
def test_a_helper_rebinding_a_module_name_with_global_is_refused(what):
    helper = "\n\ndef bump():\n    global SCALE\n    SCALE = SCALE + 1.0\n"
    edits = [("N = 4", "N = 4\nSCALE = 1.0" + helper)]
    if what == "stage":
        st = ex.ST.replace("    x = x_db.next()\n", "    x = x_db.next()\n    pl.muls(x, x, SCALE)\n")
        loop = ex.LOOP + "\n    bump()"
    else:  # the loop's end, rebound by the helper each iteration
        st, helper = ex.ST, "\n\ndef bump():\n    global LEFT\n    LEFT = LEFT - 1\n"
        edits = [("N = 4", "N = 4\nLEFT = 4" + helper)]
        loop = ex.LOOP.replace("pl.range(0, N)", "pl.range(0, LEFT)") + "\n    bump()"
    text = edited(ex.kernel(st=st, loop=loop), edits)
    errors = error_messages(transpile(text, path="global.py"))
    name = "SCALE" if what == "stage" else "LEFT"
    assert any(f"binds `{name}` outside its own frame (`global`)" in e
               or f"`{name}` is rebound through `global` (line " in e for e in errors), errors


def test_one_more_atomic_add_by_block_0_alone_is_proven():
    text = edited(TILED, [
        ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):\n",
         "def finish(i, sub_id, scale, out, total, proj_vec_db, res_db):\n"),
        ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
         "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
         "    pl.store(total, res, [sub_id * HALF, 0], atomic=pl.AtomicType.AtomicAdd)\n"),
        ("    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n    total: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"),
        (AFTER_LOOP, "            finish(i, sub_id, tiling.scale, out, total, proj_vec_db, res_db)\n"
                     "    with pl.section_vector():\n        if core_id == 0:\n            z = res_db.next()\n"
                     "            pl.full(z, 1.0)\n"
                     "            pl.store(total, z, [sub_id * HALF, 0], atomic=pl.AtomicType.AtomicAdd)\n")])
    result = transpile(text, path="one_more.py")
    assert error_messages(result) == [], [str(d) for d in result.diagnostics]


LOOP_DELETES_END = ex.kernel(loop="left = N\n" + ex.LOOP.replace("pl.range(0, N)", "pl.range(0, left)")
                             + "\n    if ki == 0:\n        del left")


def test_a_loop_whose_body_deletes_its_end_keeps_the_end_and_is_proven():
    result = transpile(LOOP_DELETES_END, path="deleted.py", preload=1)
    assert error_messages(result) == [], [str(d) for d in result.diagnostics]
    assert "_pl_end_ki = left\n" in result.code and "if ki < _pl_end_ki:" in result.code


@pytest.mark.emulator
def test_it_verifies_ok():
    code = transpile(LOOP_DELETES_END, path="deleted.py", preload=1).code
    report = verify(LOOP_DELETES_END, code, "kernel", path="deleted.py")
    assert report.ok, report.summary()


def test_a_match_statement_in_the_loop_is_a_diagnostic_not_a_crash():
    text = ex.kernel(loop=ex.LOOP + "\n    match 1:\n        case left:\n            pass")
    result = transpile(text, path="match.py")
    assert [d.code for d in result.diagnostics if d.is_error] == ["PTO061"], [str(d) for d in result.diagnostics]
