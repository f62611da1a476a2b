"""Two pipeline loops calling the same stages, the second's cross-core group at the UB address
of the first's vector-local group: the first loop's last store still reads `res_db` when the
second loop's first move writes `proj2_vec_db`. Refused, as it should be, but with the help for
two stages of one loop (hand data through tile groups, or keep both accesses in one stage),
and the two accesses named tasks 0 and 1 as if of one loop: the stage names alone did not tell
the loops apart, as both call them (probe h138). The help orders the loops now, each task says
its loop, and with the `sync_all` the help asks for the kernel is proven and runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
GROUP = ("        type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "        addrs=0x8000, mutex_ids=[12, 13], fwd_ids=[4, 5], bwd_ids=[6, 7],\n    )\n")
SECOND = ("    for k in pl.range(0, n):\n        with pl.section_cube():\n"
          "            project(k, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj2_vec_db)\n"
          "        with pl.section_vector():\n            finish(k, sub_id, out2, proj2_vec_db, res2_db)\n")
LAST = "            finish(i, sub_id, out, proj_vec_db, res_db)\n"


def _kernel(barrier: str = "") -> str:
    return edited(ROWS, [
        ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
         "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    out2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"
         "    n: pl.DT_INT32,\n"),
        ("fwd_ids=[0, 1], bwd_ids=[2, 3],\n    )\n",
         "fwd_ids=[0, 1], bwd_ids=[2, 3],\n    )\n    proj2_vec_db = pl.make_tile_group(\n" + GROUP),
        ("            addrs=0x8000, mutex_ids=[10, 11],\n",
         "            addrs=0x8000, mutex_ids=[12, 13],\n        )\n        res2_db = pl.make_tile_group(\n"
         "            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "            addrs=0x10000, mutex_ids=[14, 15],\n"),
        (LAST, LAST + barrier + SECOND),
    ])


def test_the_race_across_the_loops_names_them_and_asks_for_a_barrier():
    errors = [d for d in transpile(_kernel(), path="k.py", preload=1).diagnostics if d.is_error]
    assert len(errors) == 1, [d.message for d in errors]
    assert "(task 1, of the loop at line 87)" in errors[0].message and "(task 0, of the loop at line 82)" \
        in errors[0].message, errors[0].message
    assert errors[0].hint.startswith("Order the two pipeline loops with `pl.system.sync_all("), errors[0].hint


@pytest.mark.parametrize("preload", [1, 2])
def test_with_the_barrier_the_loops_are_proven_and_run_as_the_serial_kernel(preload):
    text = _kernel("    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n")
    result = transpile(text, path="k.py", preload=preload)
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(text, result.code, "kern", path="k.py", scalars={"n": 3},
                    shapes={"a": (96, 32), "out": (96, 32), "out2": (96, 32), "w": (32, 32)})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
