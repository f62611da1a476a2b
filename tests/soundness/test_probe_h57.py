"""Kernels a hostile probe (h57) found accepted and wrong, each an edit of examples/tiled_scale.py
or of the rules' two-stage example: a call in an arm of a conditional expression whose test the
check cannot decide ran in neither arm (a store racing between the vector cores, a barrier one
block skips); a function chosen by the block (`[pl.system.bar_all, pl.system.sync_all][core_id ==
0]`) and then called was skipped as an unknown call (a deadlock at 2 blocks); and every block
adding into an accumulator and reading it back was judged across blocks only when the blocks
split the work (a race at 2 and 3 blocks)."""

from __future__ import annotations

import pytest

import skeleton as ex
from helpers import ROOT, edited, error_messages
from pto_transpile import transpile

TILED = (ROOT / "examples" / "tiled_scale.py").read_text()
CALL = "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"


def _after_loop(lines: str) -> str:
    return edited(TILED, [(CALL, CALL + lines)])


@pytest.mark.parametrize("line", [
    "    with pl.section_vector():\n        t = res_db.next()\n        pl.load(t, a, [sub_id * HALF, 0])\n"
    "        pl.store(out, t, [0, 0]) if core_id == 0 else None\n",
    "    pl.system.sync_all() if core_id == 0 else None\n",
], ids=["store", "barrier"])
def test_a_call_in_an_arm_of_an_undecided_choice_is_refused(line):
    errors = error_messages(transpile(_after_loop(line), path="ifexp.py"))
    assert any("calls something in an arm of a choice whose test the check cannot decide" in e for e in errors), errors


def test_a_function_chosen_by_the_block_is_refused_when_called():
    text = _after_loop("    fn = [pl.system.bar_all, pl.system.sync_all][core_id == 0]\n    fn()\n")
    errors = error_messages(transpile(text, path="chosen.py"))
    assert any("the check cannot tell which function `fn` is here" in e for e in errors), errors


def test_every_block_adding_into_what_it_reads_back_is_refused_without_a_block_index():
    params = ex.PARAMS.replace("out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],",
                               "out: pl.Tensor[[HALF, TILE], pl.DT_FP32],\nout2: pl.Tensor[[HALF, TILE], pl.DT_FP32],")
    st = ex.ST.replace("    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])",
                       "    pl.store(out, x, [0, 0], atomic=pl.AtomicType.AtomicAdd)")
    after = ("with pl.section_vector():\n    pl.system.bar_all()\n    back = x_db.next()\n"
             "    pl.load(back, out, [0, 0])\n    pl.store(out2, back, [0, 0], atomic=pl.AtomicType.AtomicAdd)")
    errors = error_messages(transpile(ex.kernel(st=st, params=params, after=after), path="readback.py"))
    assert any("`out` is added to atomically by every block" in e for e in errors), errors
