"""Code after a pipeline loop, in the body of the loop around it, runs pipelined before the
delayed stages of that outer iteration's last tasks: the pipeline runs on across the outer
iterations, its drain after the outer loop. A store of the sum there reads the accumulator too
early; the refusal was right, its help (state kept in tiles) did not say what to do (probe h73)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import DYNAMIC_ROWS, DYNAMIC_ROWS_LOOP, edited
from pto_transpile import codes, transpile
from sim_runtime.verify import verify

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
#: an outer per-core loop around a pipeline loop accumulating into `run_db`, and a store of the sum
#: after the pipeline loop, in the outer body
STORE_AFTER = edited(ROWS, [
    ("def finish(i, sub_id, out, proj_vec_db, res_db):\n    proj = proj_vec_db.next()\n    res = res_db.next()\n"
     "    pl.muls(res, proj, 0.5)\n    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
     "def accum(ki, proj_vec_db, run_db):\n    proj = proj_vec_db.next()\n    run = run_db.current()\n"
     "    if ki == 0:\n        pl.muls(run, proj, 1.0)\n    else:\n        pl.add(run, run, proj)\n"),
    ("        res_db = pl.make_tile_group(", "        run_db = pl.make_tile_group("),
    ("addrs=0x8000, mutex_ids=[10, 11],", "addrs=0x8000, mutex_ids=[10],"),
    ("    n_blocks = a.shape[0] // BLOCK\n    for i in pl.range(0, n_blocks):\n        with pl.section_cube():\n"
     "            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)\n"
     "        with pl.section_vector():\n            finish(i, sub_id, out, proj_vec_db, res_db)\n",
     "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    num_cores = pl.get_block_num()\n"
     "    nq = out.shape[0] // BLOCK\n    nk = a.shape[0] // BLOCK\n"
     "    for qi in pl.range(core_id, nq, num_cores):\n        for ki in pl.range(0, nk):\n"
     "            with pl.section_cube():\n"
     "                project(ki, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)\n"
     "            with pl.section_vector():\n                accum(ki, proj_vec_db, run_db)\n"
     "        with pl.section_vector():\n            run = run_db.current()\n"
     "            pl.store(out, run, [qi * BLOCK + sub_id * HALF, 0])\n"),
])
#: the help applied: the last stage stores the sum at the last inner iteration
IN_LAST_STAGE = edited(STORE_AFTER, [
    ("def accum(ki, proj_vec_db, run_db):", "def accum(ki, nk, qi, sub_id, out, proj_vec_db, run_db):"),
    ("        pl.add(run, run, proj)\n",
     "        pl.add(run, run, proj)\n"
     "    if ki == nk - 1:\n        pl.store(out, run, [qi * BLOCK + sub_id * HALF, 0])\n"),
    ("                accum(ki, proj_vec_db, run_db)\n        with pl.section_vector():\n"
     "            run = run_db.current()\n            pl.store(out, run, [qi * BLOCK + sub_id * HALF, 0])\n",
     "                accum(ki, nk, qi, sub_id, out, proj_vec_db, run_db)\n"),
])
SHAPES = {"a": (96, 32), "out": (96, 32)}


def test_a_store_after_the_pipeline_loop_is_refused_with_the_help_to_do_it_in_the_last_stage():
    [d] = [d for d in transpile(STORE_AFTER, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.PIPELINE_NOT_PROVEN and "`pl.store` on MTE3 of AIV0 reads `run_db[0]`" in d.message
    assert d.hint.startswith("Do what follows the pipeline loop in the last stage, under a test of the last "
                             "iteration (`if ki == n - 1:`)"), d.hint


@pytest.mark.parametrize("block_dim", [1, 2])
def test_the_help_applied_gives_a_proven_kernel_that_runs_as_the_serial_one(block_dim):
    result = transpile(IN_LAST_STAGE, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    rows = verify(IN_LAST_STAGE, result.code, "kern", path="k.py", shapes=SHAPES, block_dim=block_dim).rows
    assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message


TRIP = (Path(__file__).parent / "kernels" / "trip_param.py").read_text(encoding="utf-8")
#: after the pipeline loop, the cube loads what the vector stage stored to `last` (probe h92)
LOAD_LAST = edited(TRIP, [
    ("    last: pl.Tensor[[TILE, TILE], pl.DT_FP32],\n",
     "    last: pl.Tensor[[TILE, TILE], pl.DT_FP32],\n    post: pl.Tensor[[TILE, TILE], pl.DT_FP32],\n"),
    ("            scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring)\n",
     "            scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring)\n"
     "    with pl.section_cube():\n        t = a_l1.next()\n        pl.load(t, last, [0, 0])\n"
     "        left = left_db.next()\n        right = right_db.next()\n        acc = acc_db.next()\n"
     "        pl.move(left, t)\n        pl.move(right, t)\n        pl.matmul(acc, left, right)\n"
     "        pl.store(post, acc, [0, 0])\n"),
])


def test_a_race_of_the_kernel_body_after_the_loop_helps_with_a_barrier():
    """The help was to hand data between stages through tile groups, or keep both accesses in
    one stage: neither fits code of the kernel body. A barrier after the loop does."""
    found = [d for d in transpile(LOAD_LAST, path="k.py").diagnostics if d.is_error]
    assert len(found) == 1 and "the kernel body at line" in found[0].message, [d.message for d in found]
    assert found[0].hint.startswith("Put `pl.system.sync_all()` between the pipeline loop and the kernel-body code")
    fixed = edited(LOAD_LAST, [("    with pl.section_cube():\n        t = a_l1.next()\n",
                                "    pl.system.sync_all()\n    with pl.section_cube():\n        t = a_l1.next()\n")])
    result = transpile(fixed, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    shapes = {"a": (96, 32), "out": (96, 32)}
    report = verify(fixed, result.code, "kernel", path="k.py", shapes=shapes, scalars={"n": 3})
    assert [row.verdict for row in report.rows] == ["ok", "ok"]



#: an outer loop over heads around the pipeline, each head summing into a plain tile the kernel
#: body zeroes before and stores after it, behind a barrier (probe h224)
HEADS = edited(DYNAMIC_ROWS.read_text(encoding="utf-8"), [
    ("def scale_store(ki, sub_id, out, c_vec_db, y_db):\n    c_vec = c_vec_db.next()\n    y = y_db.next()\n"
     "    pl.relu(y, c_vec)\n    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n",
     "def accum(c_vec_db, accv):\n    c_vec = c_vec_db.next()\n    pl.add(accv, accv, c_vec)\n"),
    ("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
     "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    nh: pl.DT_INT32,\n"),
    ("        y_db = pl.make_tile_group(\n"
     "            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
     "            addrs=0x4000,\n            mutex_ids=[12, 13],\n        )\n",
     "        accv = pl.make_tile(\n"
     "            pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x8000)\n"),
    (DYNAMIC_ROWS_LOOP,
     "    for h in pl.range(0, nh):\n        with pl.section_vector():\n            pl.full(accv, 0.0)\n"
     "        for ki in pl.range(0, n_tiles):\n            with pl.section_cube():\n"
     "                mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)\n"
     "            with pl.section_vector():\n                accum(c_vec_db, accv)\n"
     "        pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"
     "        with pl.section_vector():\n            pl.store(out, accv, [h * TILE + sub_id * HALF, 0])\n"),
])


def test_a_barrier_before_the_store_gets_the_same_help():
    """The barrier orders nothing against the delayed stages of the head's last tasks, which run
    after it, in the next head or the drain; the help asked to add the barrier the kernel had."""
    [d] = [d for d in transpile(HEADS, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.PIPELINE_NOT_PROVEN and "`pl.store` on MTE3 of AIV0 reads `accv`" in d.message, d.message
    assert d.hint.startswith("Do what follows the pipeline loop in the last stage"), d.hint
    forced = transpile(HEADS, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,))
    report = verify(HEADS, forced.code, "kernel", shapes={"a": (64, 32), "out": (64, 32)}, scalars={"nh": 2})
    assert [r.verdict for r in report.rows] == ["ok", "race"], report.rows
