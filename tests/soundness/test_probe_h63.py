"""A tile group one slot of which is also held by a name taken before the loop (`bias0 =
bias_db.current()`, or `.next()`), read by a stage in the loop while another stage moves the
group's cursor every task. That name reaches one fixed slot whatever phase the cursor is in, so
the slots are not interchangeable and the cursor's rotation must join the period: it was taken
as a renamed rotation (period 1), and a kernel wrong at one residue of the group's depth was
proven at a count of another residue (a long static loop) or never run to the task where it
shows (a loop of run-time trip count, run up to 2Z + L tasks). Found by a hostile probe (h63);
the kernels are edits of the bundled examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

EXAMPLES = Path(__file__).parents[2] / "examples"
SEED = (EXAMPLES / "seed_demo.py").read_text()
TILED = (EXAMPLES / "tiled_scale.py").read_text()


def _seed(n_iter: int, pick: str = "current") -> str:
    """The seed demo with `N_ITER` tiles; stage2 moves a 3-slot `bias_db` and fills its slot in
    the last task; stage4 adds `bias0`, bias_db's slot held before the loop. Wrong when `N_ITER %
    3 == 0`: stage2 of the last task fills bias0's slot before stage4 of the task before reads it."""
    return edited(SEED, [
        ("N_ITER = 4\n", f"N_ITER = {n_iter}\n"),
        ("def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):\n",
         "def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db, bias_db):\n"
         "    bias = bias_db.next()\n    if ki == N_ITER - 1:\n        pl.full(bias, 3.0)\n"),
        ("def stage4(ki, sub_id, out, out_vec_db):", "def stage4(ki, sub_id, out, out_vec_db, res_db, bias0):"),
        ("    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])",
         "    res = res_db.next()\n    pl.add(res, out_vec, bias0)\n"
         "    pl.store(out, res, [ki * TILE + sub_id * TILE_HALF, 0])"),
        ("            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)",
         "            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db, bias_db)"),
        ("            stage4(ki, sub_id, out, out_vec_db)",
         "            stage4(ki, sub_id, out, out_vec_db, res_db, bias0)"),
        ("    # The pipeline loop: the 4 stages, cube and vector alternating\n",
         "    with pl.section_vector():\n"
         "        res_db = pl.make_tile_group(\n"
         "            type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "            addrs=0x20000,\n            mutex_ids=[22, 23],\n        )\n"
         "        bias_db = pl.make_tile_group(\n"
         "            type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "            addrs=0x28000,\n            mutex_ids=[24, 25, 26],\n        )\n"
         f"        bias0 = bias_db.{pick}()\n        pl.full(bias0, 0.0)\n\n"
         "    # The pipeline loop: the 4 stages, cube and vector alternating\n"),
    ])


#: the tiled-scale example with a 16-slot `bias_db` moved by a new vector stage `prep` every task
#: (its slot filled with 1.0) and `bias0 = bias_db.current()` added by `finish`: wrong as soon as
#: a core runs 16 row blocks (prep of task 15 fills bias0's slot before finish of task 14)
TILED_HELD = edited(TILED, [
    ("@pl.pipeline.stage\ndef finish(i, sub_id, scale, out, proj_vec_db, res_db):",
     "@pl.pipeline.stage\ndef prep(bias_db):\n    b = bias_db.next()\n    pl.full(b, 1.0)\n\n\n"
     "@pl.pipeline.stage\ndef finish(i, sub_id, scale, out, proj_vec_db, res_db, bias0):"),
    ("    epilogue(res, proj, scale)\n", "    epilogue(res, proj, scale)\n    pl.add(res, res, bias0)\n"),
    ("            mutex_ids=[10, 11],\n        )\n",
     "            mutex_ids=[10, 11],\n        )\n"
     "        bias_db = pl.make_tile_group(\n"
     "            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
     "            addrs=0x10000,\n"
     "            mutex_ids=[12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27],\n        )\n"
     "        bias0 = bias_db.current()\n        pl.full(bias0, 0.0)\n"),
    ("    for i in pl.range(core_id, n_blocks, num_cores):\n",
     "    for i in pl.range(core_id, n_blocks, num_cores):\n"
     "        with pl.section_vector():\n            prep(bias_db)\n"),
    ("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)",
     "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db, bias0)"),
])


@pytest.mark.parametrize("pick", ["current", "next"])
@pytest.mark.parametrize("preload", [1, 2])
def test_a_long_loop_wrong_at_one_residue_of_a_held_groups_depth_is_refused(pick, preload):
    errors = error_messages(transpile(_seed(300, pick), path="k.py", preload=preload))
    assert len(errors) == 1 and "reads `bias_db[" in errors[0] and "N_ITER` = " in errors[0], errors


def test_the_same_loop_at_another_residue_is_proven():
    """301 and 302 tiles: the last task's fill lands in another slot (refused before, at preload
    2, by a representative count of the wrong residue)."""
    for n in (301, 302):
        assert error_messages(transpile(_seed(n), path="k.py", preload=2)) == [], n


@pytest.mark.parametrize("preload", [1, 2])
def test_a_run_time_count_wrong_from_16_tiles_a_core_is_refused(preload):
    errors = error_messages(transpile(TILED_HELD, path="k.py", preload=preload))
    assert len(errors) == 1 and "reads `bias_db[15]`" in errors[0], errors


@pytest.mark.emulator
def test_the_emulator_shows_it_wrong_at_16_tiles_and_right_at_15():
    code = transpile(TILED_HELD, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    assert code is not None

    def verdict(rows: int) -> str:
        report = verify(TILED_HELD, code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                        scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=1, seed=0)
        return report.rows[-1].verdict

    assert verdict(15 * 32) == "ok"
    assert verdict(16 * 32) != "ok"
