"""Probe h87's holes: kernels `--check` accepted whose pipelined run raced on the emulator while
the serial run was ok.

A value of a loop's variable kept in an entry of the author's own `pl.struct_array`
(`ring[0].row = k + 1`) was left as it was at the loop's end: such a list was taken for a ctx
ring, whose values a drain reads. Read after the loop, `row % 16` passed for a residue of a loop
variable and the class `n % 16 == 15` was not run past the bound (the race needs n = 31). Every
container is now rebound (`Loops._values_after`); the generated kernel's ring is its own `_pl_`
names, which are left as they are. The same walk did not reach a caller's frame (a helper that
drops its own name for the struct), and the phase a first loop leaves a tile group at (a slot of
its own valid shape) was no residue of the count for a later loop over it.
"""

from __future__ import annotations

import pytest
from test_probe_h83 import CALL, FINISH, PICK, PICKED
from test_probe_h86 import FLAG, HARMLESS, RACE, _flagged

from helpers import edited, error_messages
from pto_transpile import transpile

IN_RING = _flagged("    ring = pl.struct_array(2, \"Beat\", row=0)\n    for _k in pl.range(0, n_blocks):\n"
                   "        ring[0].row = _k + 1\n    q = ring[0].row\n" + FLAG)


@pytest.mark.campaign  # the suite's time: the caller's frame below runs by default
def test_a_value_left_in_the_authors_struct_array_is_one_of_the_count():
    [error] = error_messages(transpile(IN_RING, path="k.py", preload=1))
    assert RACE in error, error
    assert error_messages(transpile(edited(IN_RING, [HARMLESS]), path="k.py", preload=1)) == []


#: a helper's loop writes into a struct the caller holds, and drops its own name for it in the
#: last iteration: the walk at the loop's end did not reach the caller's frame
DROPPED = _flagged("    def fill(st, m):\n        for _k in pl.range(0, m):\n            st.v = _k + 1\n"
                   "            if _k == m - 1:\n                st = None\n        return 0\n"
                   "    s = pl.struct('S', v=0)\n    fill(s, n_blocks)\n    q = s.v\n" + FLAG)
#: a depth-16 tile group a first loop over the count moves once per task, left at slot `n % 16`
#: for the pipeline loop, whose vector stage stores one slot's valid rows into `ws`: only slot 13
#: has 16 valid rows, which reach the rows the cube's next task loads (the race needs n = 31)
GROUP_PHASE = edited(PICKED, [
    ("    pl.load(cur_w, ws, [0, 0])\n", "    pl.load(cur_w, ws, [32, 0])\n"),
    (FINISH, FINISH.replace("alpha)", "alpha, g)")),
    (PICK, "    res2 = g.next()\n    pl.muls(res2, proj, 0.25)\n    if i % 16 == 14:\n"
           "        pl.store(ws, res2, [24 + sub_id * 40, 0])\n"),
    ("    ws: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n", "    ws: pl.Tensor[[3 * BLOCK, BLOCK], pl.DT_FP32],\n"),
    ("    for i in pl.range(0, n_blocks):\n",
     "    with pl.section_vector():\n        g = pl.make_tile_group(\n"
     "            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
     "            addrs=0x10000, mutex_ids=list(range(14, 30)),\n        )\n        for j in range(16):\n"
     "            tj = g[j]\n            pl.set_validshape(tj, [16 if j == 13 else 8, BLOCK])\n"
     "        for _k in pl.range(0, n_blocks):\n            _slot = g.next()\n"
     "    for i in pl.range(0, n_blocks):\n"),
    (CALL, CALL.replace("alpha)", "alpha, g)"))])


def test_a_value_left_where_only_a_caller_holds_it_is_one_of_the_count():
    [error] = error_messages(transpile(DROPPED, path="k.py", preload=1))
    assert RACE in error, error


@pytest.mark.campaign  # the suite's time
def test_the_phase_a_loop_leaves_a_tile_group_at_is_a_residue_of_the_count():
    [error] = error_messages(transpile(GROUP_PHASE, path="k.py", preload=1))
    assert "while stage `project` (task 15)" in error, error
    harmless = edited(GROUP_PHASE, [("        pl.store(ws, res2,", "        pl.store(ws2, res2,")])
    assert error_messages(transpile(harmless, path="k.py", preload=1)) == []
