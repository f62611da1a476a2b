"""Probe h177: `pl.row_expand_add(out, src, side[0:8, :])` reads as many rows of its vector
operand as `out` has valid rows (16 here), from the view's first: past the view, into rows another
stage writes (`pl.relu(side[8:32, :], ...)`). The check took the view's rows alone, found no
dependence, and let that stage run ahead: accepted, and the emulator's outputs differ. The row and
column expands take a view's whole tile now, as the ops that place what they touch do."""

from __future__ import annotations

import pytest

from helpers import DEMO, edited, error_messages
from pto_transpile import transpile

SIDE = [
    ("def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):",
     "def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db, side):"),
    ("    pl.relu(relu_vec, mm1_vec)\n",
     "    pl.relu(relu_vec, mm1_vec)\n    pl.relu(side[8:32, :], mm1_vec[8:32, :])\n"),
    ("def stage4(ki, sub_id, out, out_vec_db):", "def stage4(ki, sub_id, out, out_vec_db, side):"),
    ("    out_vec = out_vec_db.next()\n    pl.store(out, out_vec,", "    out_vec = out_vec_db.next()\n    READ\n"
                                                             "    pl.store(out, out_vec,"),
    ("            mutex_ids=[20, 21],\n        )\n",
     "            mutex_ids=[20, 21],\n        )\n        side = pl.make_tile(\n"
     "            pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
     "            addr=0x20000,\n        )\n        pl.full(side, 0.0)\n"),
    ("stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)",
     "stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db, side)"),
    ("stage4(ki, sub_id, out, out_vec_db)\n", "stage4(ki, sub_id, out, out_vec_db, side)\n"),
]


@pytest.mark.parametrize("read", ["pl.row_expand_add(out_vec, out_vec, side[0:8, :])",
                                  "pl.row_expand(out_vec, side[0:8, :])"])
def test_an_expand_given_a_view_reads_past_its_rows(read):
    text = edited(DEMO.read_text(), SIDE).replace("READ", read)
    errors = error_messages(transpile(text, path="k.py"))
    assert errors and "reads `side`" in errors[0], errors


def test_the_emulator_sees_the_rows_an_expand_reads_past_a_view():
    # its race detector took the view's valid window alone: a load into rows 8..16 of `side` on
    # MTE2, unordered with the expand's read of rows 0..16 on V, was no race to it
    from sim_runtime.verify import verify

    read = ("pl.load(side[8:16, :], a, [ki * TILE, 0])\n"
            "    pl.row_expand_add(out_vec, out_vec, side[0:8, :])")
    text = edited(DEMO.read_text(), [*SIDE[:2], *SIDE[4:], SIDE[2], SIDE[3]]).replace("READ", read)
    text = edited(text, [("def stage4(ki, sub_id, out, out_vec_db, side):",
                          "def stage4(ki, sub_id, a, out, out_vec_db, side):"),
                         ("stage4(ki, sub_id, out, out_vec_db, side)\n",
                          "stage4(ki, sub_id, a, out, out_vec_db, side)\n"),
                         ("    pl.relu(side[8:32, :], mm1_vec[8:32, :])\n", "")])
    row = verify(text, text, "pipeline_demo_kernel", path="k.py").rows[0]
    assert row.verdict == "race" and "from 0x20000" in row.message and "pl.row_expand_add" in row.message, row
