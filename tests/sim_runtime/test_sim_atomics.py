"""Atomic stores to GM: GM applies each as one read-modify-write per element, so atomic adds of
one dtype from several blocks to the same rows do not race and leave the sum, the same bits
whatever order they arrive in; a plain store, a plain read or an atomic store of another
class against one still races unless the kernel orders them."""

import textwrap
from types import SimpleNamespace

import numpy as np
import pytest

from pto_api.effects import atomic_class
from sim_runtime import RaceError, run_kernel
from sim_runtime.memory import Footprint
from sim_runtime.races import Access, RaceDetector

pytestmark = pytest.mark.emulator

HEAD = "import pypto_pro.language as pl\n"

#: A vector-only kernel (one AIV per block): block b loads rows [16b, 16b + 16) of x and
#: does BODY with that tile, `t[0]`.
BLOCKS = """
@pl.jit
def k(x: pl.Tensor[[48, 32], pl.DT_FP32], out: pl.Tensor[[16, 32], pl.DT_FP32],
      seen: pl.Tensor[[16, 32], pl.DT_FP32]):
    with pl.section_vector():
        t = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32,
                                                target_memory=pl.MemorySpace.Vec), addrs=0, mutex_ids=[0])
        u = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32,
                                                target_memory=pl.MemorySpace.Vec), addrs=0x4000, mutex_ids=[1])
        b = pl.get_block_idx()
        pl.load(t[0], x, [b * 16, 0])
        BODY
"""
ADD = "pl.store(out, t[0], [0, 0], atomic=pl.AtomicType.AtomicAdd)"

#: Block 2 takes back what block 0 adds, 1e4 times what block 1 adds: the fp32 sum depends on
#: the order of the additions (block 1's rows come out exact only when it adds last).
_BIG, _SMALL = (np.random.default_rng(3).standard_normal((2, 16, 32)) * [[[1e4]], [[1.0]]]).astype(np.float32)
X = np.concatenate([_BIG, _SMALL, -_BIG])


def run(body: str, block_dim: int, **kw):
    src = BLOCKS.replace("BODY", textwrap.indent(textwrap.dedent(body), " " * 8).strip())
    return run_kernel("kernel.py", "k", {"x": X}, source=HEAD + src, block_dim=block_dim, **kw)


def block_sum(blocks: int) -> np.ndarray:
    """The blocks' tiles added in block order, each addition rounded to fp32."""
    total = np.zeros((16, 32), np.float32)
    for b in range(blocks):
        total = total + X[16 * b:16 * b + 16]
    return total


@pytest.mark.parametrize("blocks", [2, 3])
def test_atomic_adds_of_several_blocks_to_the_same_rows_do_not_race_and_sum(blocks):
    out = run(ADD, blocks).outputs["out"]
    assert np.array_equal(out, block_sum(blocks))


@pytest.mark.parametrize("mode, seed", [("sequential", 0), ("concurrent", 1), ("concurrent", 2), ("concurrent", 7)])
def test_the_sum_has_the_same_bits_in_any_order_the_blocks_reach_gm(mode, seed):
    """Random schedules and costs change which block adds first; the result does not."""
    out = run(ADD, 3, mode=mode, schedule="random", seed=seed).outputs["out"]
    assert np.array_equal(out, block_sum(3))
    assert not np.array_equal(block_sum(3), (X[0:16] + X[32:48]) + X[16:32])  # another order shows


def test_a_read_ordered_after_every_addition_sees_the_sum():
    body = f"""
    {ADD}
    pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)
    if b == 0:
        pl.load(u[0], out, [0, 0])
        pl.store(seen, u[0], [0, 0])
    """
    res = run(body, 3)
    assert np.array_equal(res.outputs["seen"], block_sum(3))
    assert np.array_equal(res.outputs["out"], block_sum(3))


def test_a_plain_store_racing_an_atomic_add_is_a_race():
    body = f"""
    if b == 0:
        pl.store(out, t[0], [0, 0])
    else:
        {ADD}
    """
    with pytest.raises(RaceError, match=r"(?s)GM tensor 'out'.*atomic add of DT_FP32.*commutes only with atomic"):
        run(body, 2)


def test_an_atomic_add_and_an_unordered_read_of_the_same_rows_race():
    body = f"""
    if b == 0:
        {ADD}
    else:
        pl.load(u[0], out, [0, 0])
        pl.store(seen, u[0], [0, 0])
    """
    with pytest.raises(RaceError, match=r"(?s)GM tensor 'out'.*read .*by b1\.AIV"):
        run(body, 2)


def test_an_atomic_add_ordered_after_a_plain_store_is_no_race():
    body = f"""
    if b == 0:
        pl.store(out, t[0], [0, 0])
    pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)
    {ADD}
    """
    out = run(body, 2).outputs["out"]
    assert np.array_equal(out, (X[0:16] + X[0:16]) + X[16:32])


# -- the detector's rule, on accesses made by hand ------------------------------------------

CORES = [SimpleNamespace(index=i, name=f"b{i}.AIV", kind="aiv", block=i) for i in range(2)]
ROWS = Footprint.make(("GM", "out"), 0, 128, 16, 128)


def access(detector: RaceDetector, core: int, kind: str, atomic=None) -> None:
    """`core` accesses ROWS on MTE3: a read or write, atomic of class `atomic` or plain."""
    vc, comp, epoch = detector.op_clock(CORES[core], "MTE3", ())
    detector.check(Access(ROWS, kind, CORES[core], "MTE3", comp, epoch, "pl.store", atomic=atomic), vc)


ADD32, ADD16 = atomic_class("AtomicAdd", "DT_FP32"), atomic_class("AtomicAdd", "DT_FP16")


def test_the_class_is_the_reduction_and_the_dtype():
    assert ADD32 == ("add", "DT_FP32")
    assert atomic_class("AtomicNone", "DT_FP32") is None and atomic_class(None, "DT_FP32") is None


def test_atomic_adds_of_another_dtype_on_the_same_bytes_race():
    detector = RaceDetector(CORES, [])
    access(detector, 0, "W", ADD32)
    access(detector, 1, "W", ADD32)
    with pytest.raises(RaceError, match="atomic add of DT_FP16"):
        access(detector, 1, "W", ADD16)


def test_an_atomic_add_does_not_hide_the_plain_store_before_it():
    """b0's atomic add is ordered after b0's plain store and covers it, but b1's atomic add,
    which commutes with the first, still races with the store."""
    detector = RaceDetector(CORES, [])
    access(detector, 0, "W")
    access(detector, 0, "W", ADD32)
    with pytest.raises(RaceError, match=r"earlier: write by b0\.AIV on pipe MTE3"):
        access(detector, 1, "W", ADD32)


def test_atomic_adds_of_one_core_keep_one_record():
    detector = RaceDetector(CORES, [])
    for _ in range(5):
        access(detector, 0, "R", ADD32)
        access(detector, 0, "W", ADD32)
    assert detector.live_records(ROWS.key) == 1
