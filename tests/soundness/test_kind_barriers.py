"""A `sync_all` of one kind of core orders the GM accesses of that kind on either side of it.

`pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)` holds every vector core of every block
until all have reached it, so a workspace only vector cores touch, written per block before it
and read across blocks after it, is ordered (`Uniform._phases`); it was judged as if no barrier
stood there and refused. A cube core does not wait at it: the same read-back on the cube is
still refused, and so is the read-back without the barrier. The kernels are examples/tiled_scale.py
with `finish` also storing its tile into its block's rows of `ws` and block 0 copying block 1's."""

from __future__ import annotations

import pytest

from helpers import ROOT, edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

BASE = edited((ROOT / "examples" / "tiled_scale.py").read_text(), [
    ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):\n",
     "def finish(i, core_id, sub_id, scale, out, ws, proj_vec_db, res_db):\n"),
    ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
     "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
     "    pl.store(ws, res, [core_id * BLOCK + sub_id * HALF, 0])\n"),
    ("    tiling: ScaleTiling,\n", "    tiling: ScaleTiling,\n    ws: pl.Tensor[[8 * BLOCK, BLOCK], pl.DT_FP32],\n"
                                  "    final: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"),
    ("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
     "            finish(i, core_id, sub_id, tiling.scale, out, ws, proj_vec_db, res_db)\n# AFTER\n"),
])
BARRIER = "        pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)\n"
VECTOR_READ = ("    with pl.section_vector():\n" + BARRIER + "        pl.system.bar_all()\n        if core_id == 0:\n"
               "            fin = res_db.next()\n            pl.load(fin, ws, [BLOCK + sub_id * HALF, 0])\n"
               "            pl.store(final, fin, [sub_id * HALF, 0])\n")
CUBE_READ = ("    with pl.section_vector():\n" + BARRIER + "    with pl.section_cube():\n        if core_id == 0:\n"
             "            cur = a_l1_db.next()\n            pl.load(cur, ws, [BLOCK, 0])\n")


def kernel(after: str) -> str:
    return BASE.replace("# AFTER\n", after)


@pytest.mark.parametrize("preload", [1, 2])
def test_a_vector_only_workspace_read_after_a_vector_only_barrier_is_proven(preload):
    result = transpile(kernel(VECTOR_READ), path="ws.py", preload=preload)
    assert error_messages(result) == [], [str(d) for d in result.diagnostics]


@pytest.mark.emulator
@pytest.mark.parametrize("blocks", [2, 3])
def test_it_verifies_ok(blocks):
    text = kernel(VECTOR_READ)
    code = transpile(text, path="ws.py", preload=1).code
    report = verify(text, code, "tiled_scale_kernel", path="ws.py", block_dim=blocks,
                    shapes={"a": (160, 32), "out": (160, 32)}, scalars={"scale": 0.5, "ApplyRelu": 1})
    assert report.ok, report.summary()


@pytest.mark.parametrize("after", [VECTOR_READ.replace(BARRIER, ""), CUBE_READ], ids=["no barrier", "cube reads"])
def test_without_the_barrier_or_read_by_the_cube_it_is_refused(after):
    errors = error_messages(transpile(kernel(after), path="ws.py", preload=1))
    assert any("`ws`" in e for e in errors), errors
