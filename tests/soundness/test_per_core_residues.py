"""Residues of a per-core loop variable depend on the number of blocks.

In `pl.range(core_id, n, num_cores)` the variable moves by the block count: with one or
three blocks `ki % 2` alternates on each block, with two it is constant, so a scratch tile
picked by `ki % 2` is overwritten by the next task before it is read (the emulator finds
the outputs differ at block-dim 2 and 4). Such a residue is refused, naming it; a counter of
iterations (`j % 2`) alternates on every block and is proven. The kernels are the seed demo
made per-core, with a scratch tile pair written in stage2 and read in stage4."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

DEMO = (Path(__file__).parents[2] / "examples" / "seed_demo.py").read_text()
SCRATCH = ("        s0 = pl.make_tile(pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, "
           "target_memory=pl.MemorySpace.Vec), addr=0x20000)\n"
           "        s1 = pl.make_tile(pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, "
           "target_memory=pl.MemorySpace.Vec), addr=0x22000)\n"
           "        scr = (s0, s1)\n\n")


def per_core(pick: str, counter: bool) -> str:
    edits = [
        ("N_ITER = 4", "N_ITER = 8"),
        ("def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):",
         "def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db, scr, par):"),
        # stage2 keeps a copy of its input in the scratch tile its task picks; stage4 adds it back
        ("    relu_vec = relu_vec_db.next()\n",
         "    relu_vec = relu_vec_db.next()\n    pl.muls(scr[par], mm1_vec, 1.0)\n"),
        ("def stage4(ki, sub_id, out, out_vec_db):", "def stage4(ki, sub_id, out, out_vec_db, scr, par):"),
        ("    out_vec = out_vec_db.next()\n    pl.store(",
         "    out_vec = out_vec_db.next()\n    pl.add(out_vec, out_vec, scr[par])\n    pl.store("),
        ("            mutex_ids=[20, 21],\n        )\n\n", "            mutex_ids=[20, 21],\n        )\n" + SCRATCH),
        ("    for ki in pl.range(0, N_ITER):\n",
         "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    j = 0\n"
         "    for ki in pl.range(core_id, N_ITER, pl.get_block_num()):\n" f"        par = {pick}\n"),
        ("p_mat_db)\n        with pl.section_cube():", "p_mat_db, scr, par)\n        with pl.section_cube():"),
        ("            stage4(ki, sub_id, out, out_vec_db)\n",
         "            stage4(ki, sub_id, out, out_vec_db, scr, par)\n" + ("        j = j + 1\n" if counter else "")),
    ]
    return edited(DEMO, edits)


def test_a_residue_of_a_per_core_loop_variable_is_refused_naming_it():
    result = transpile(per_core("ki % 2", counter=False), path="per_core.py", preload=1)
    (message,) = error_messages(result)
    assert "`ki % 2` takes a residue of `ki`, the variable of a per-core range" in message
    assert "count the block's own iterations with a counter (`j = j + 1` in the loop, then `j % k`" in message


def test_the_counter_the_hint_suggests_is_proven_and_verified():
    text = per_core("j % 2", counter=True)
    result = transpile(text, path="per_core.py", preload=1)
    assert error_messages(result) == []
    for block_dim in (2, 3):
        report = verify(text, result.code, "pipeline_demo_kernel", block_dim=block_dim)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], report.rows


@pytest.mark.parametrize("preload", [2])
def test_two_scratch_tiles_are_too_few_for_three_tasks_in_flight_and_the_message_names_them(preload):
    result = transpile(per_core("j % 2", counter=True), path="per_core.py", preload=preload)
    (message,) = error_messages(result)
    assert "reads `s0`: in the serial kernel it sees stage `stage2` (task 0)" in message  # the tile's own name
