"""Atomic adds every block makes at one place, against plain accesses of the same tensor.

The blocks' atomic adds into one accumulator commute, but a plain read or store of it by any
block between the same barriers meets the other blocks' additions unordered: a read-back by
block 0 without `pl.system.sync_all()` before it, or a zero fill by block 0 without one after
it (a hostile probe's kernels, accepted by the check and racing on the emulator at 2, 3 and 4
blocks: the cross-block rules never saw atomic adds). With the barrier, each is proven and
verifies ok. The kernels are examples/tiled_scale.py with `finish` also adding its tile into
`total`."""

from __future__ import annotations

import pytest

from helpers import ROOT, edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

ADDS = [
    ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):\n",
     "def finish(i, sub_id, scale, out, total, proj_vec_db, res_db):\n"),
    ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
     "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
     "    pl.store(total, res, [sub_id * HALF, 0], atomic=pl.AtomicType.AtomicAdd)\n"),
    ("    tiling: ScaleTiling,\n",
     "    tiling: ScaleTiling,\n    total: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"
     "    final: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"),
    ("finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
     "finish(i, sub_id, tiling.scale, out, total, proj_vec_db, res_db)\n"),
]
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
#: block 0 copies the sum to `final` after the loop, BARRIER before it
READ_BACK = ("    with pl.section_vector():\n        pl.system.bar_all()\n        if core_id == 0:\n"
             "            fin = res_db.next()\n            pl.load(fin, total, [sub_id * HALF, 0])\n"
             "            pl.store(final, fin, [sub_id * HALF, 0])\n")
#: block 0 zero-fills `total` before the loop, BARRIER after it
ZERO_FILL = ("    with pl.section_vector():\n"
             "        z = pl.make_tile(pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, "
             "target_memory=pl.MemorySpace.Vec), addr=0x10000)\n"
             "        pl.full(z, 0.0)\n        pl.system.bar_all()\n        if core_id == 0:\n"
             "            pl.store(total, z, [sub_id * HALF, 0])\n        pl.system.bar_all()\n")
BARRIER = "    pl.system.sync_all()\n"
BASE = (ROOT / "examples" / "tiled_scale.py").read_text()


CALL = "            finish(i, sub_id, tiling.scale, out, total, proj_vec_db, res_db)\n"


def read_back(barrier: bool) -> str:
    return edited(edited(BASE, ADDS), [(CALL, CALL + (BARRIER if barrier else "") + READ_BACK)])


def zero_fill(barrier: bool) -> str:
    return edited(BASE, ADDS + [(LOOP, ZERO_FILL + (BARRIER if barrier else "") + LOOP)])


@pytest.mark.parametrize("make, other", [(read_back, "pl.load(fin, total, [sub_id * HALF, 0])"),
                                         (zero_fill, "pl.store(total, z, [sub_id * HALF, 0])")])
@pytest.mark.parametrize("preload", [1, 2])
def test_a_plain_access_between_the_same_barriers_as_every_blocks_adds_is_refused(make, other, preload):
    errors = error_messages(transpile(make(False), path="acc.py", preload=preload))
    assert len(errors) == 1 and "`total` is added to atomically by every block" in errors[0] \
        and f"(`{other}`)" in errors[0] and "pl.system.sync_all()" in errors[0], errors


@pytest.mark.parametrize("make", [read_back, zero_fill])
@pytest.mark.parametrize("preload", [1, 2])
def test_with_a_barrier_between_them_it_is_proven(make, preload):
    result = transpile(make(True), path="acc.py", preload=preload)
    assert error_messages(result) == [], [str(d) for d in result.diagnostics]


@pytest.mark.emulator
@pytest.mark.parametrize("make", [read_back, zero_fill])
@pytest.mark.parametrize("barrier", [False, True])
def test_the_emulator_agrees(make, barrier):
    text = make(barrier)
    code = transpile(text, path="acc.py", preload=1, _skip_rules={"PTO061"}).code
    assert code is not None
    rows = [row.verdict for row in verify(text, code, "tiled_scale_kernel", path="acc.py", block_dim=2,
                                          shapes={"a": (160, 32), "out": (160, 32)},
                                          scalars={"scale": 0.5, "ApplyRelu": 0}).rows]
    assert rows == ["ok", "ok"] if barrier else rows[0] == "race", rows  # the serial kernel races already


def test_a_vector_only_barrier_orders_vector_adds_and_a_vector_read_back():
    # only vector cores reach `total`: every vector core of every block waits at the barrier
    text = read_back(True).replace(BARRIER, "    with pl.section_vector():\n"
                                            "        pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)\n")
    assert "AIV_ONLY" in text
    result = transpile(text, path="acc.py", preload=1)
    assert error_messages(result) == [], [str(d) for d in result.diagnostics]
