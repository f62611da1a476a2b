"""A kernel pipelined by hand, as production kernels are: out[i] = relu(a[i] @ b).

There is no `pipeline=` on `@pl.jit`: the author wrote the ring of per-iteration contexts,
every cross-core `set_cross_core`/`wait_cross_core`, the priming of the release events
and the drain. pto-transpile leaves such a kernel as written (a note, exit 0, its copy marked);
`pto-transpile examples/hand_pipelined.py --simulate` runs it on the emulated NPU with
hardware semantics and reports any race, deadlock or unbalanced event in the author's
own syncs.

Schedule: in beat t the cube computes tile t while the vector cores finish tile t - 1.
"""

import numpy as np
import pypto_pro.language as pl
import pytest
import torch

TILE = 32
HALF = TILE // 2  # each AIV stores half of a tile's rows
N = 6
EV_FULL = [0, 1]  # cube -> vector: tile t % 2 holds a @ b of tile t
EV_FREE = [2, 3]  # vector -> cube: tile t % 2 may be overwritten


def produce(row, a, b_slot, a_l1, left_db, right_db, acc_db, x_db):
    """Cube: x = a[row:row + TILE] @ b, each AIV receives its half."""
    at = a_l1.next()
    pl.load(at, a, [row, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, at)
    pl.move(right, b_slot)
    pl.matmul(acc, left, right)
    x = x_db.next()
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


def consume(row, sub_id, out, x_db, r_db):
    """Vector: out[row + this AIV's half] = relu(x)."""
    x = x_db.next()
    r = r_db.next()
    pl.relu(r, x)
    pl.store(out, r, [row + sub_id * HALF, 0])


# Copied by pto-transpile: pipelined by hand, so left as written; edit the file it came from, not this one.
@pl.jit(auto_mutex=True)
def hand_pipelined_kernel(
    a: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
):
    # handed from cube to vector; synchronised by the EV_FULL / EV_FREE events below
    x_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000,
        mutex_ids=[0, 1],
    )
    with pl.section_cube():
        a_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[2, 3],
        )
        b_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x2000,
            mutex_ids=[4],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[5, 6],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0000,
            mutex_ids=[7, 8],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[9, 10],
        )
        b_slot = b_l1.current()
        pl.load(b_slot, b, [0, 0])
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        r_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x2000,
            mutex_ids=[11, 12],
        )

    # one context per tile in flight: the row a beat's producer works on, read a beat later
    ring = pl.struct_array(2, "Beat", row=0)
    # both tiles start free: prime the releases the cube waits for
    with pl.section_vector():
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[0])
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])

    for t in pl.range(0, N + 1):
        now = ring[t % 2]
        now.row = t * TILE
        with pl.section_cube():
            if t < N:
                pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[t % 2])
                produce(now.row, a, b_slot, a_l1, left_db, right_db, acc_db, x_db)
                pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FULL[t % 2])
        with pl.section_vector():
            if t >= 1:
                before = ring[(t - 1) % 2]
                pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=EV_FULL[(t - 1) % 2])
                consume(before.row, sub_id, out, x_db, r_db)
                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])

    # drain: consume the releases of the last two tiles so every set meets its wait
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[N % 2])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[(N + 1) % 2])


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum(a @ b, 0).astype(np.float32)


@pytest.mark.soc(950)
def test_hand_pipelined_kernel():
    torch.manual_seed(0)
    a = torch.randn(N * TILE, TILE, dtype=torch.float32, device="npu")
    b = torch.randn(TILE, TILE, dtype=torch.float32, device="npu")
    out = torch.zeros_like(a)
    hand_pipelined_kernel[None, 1](a, b, out)
    torch.npu.synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), reference(a.cpu().numpy(), b.cpu().numpy()), rtol=1e-2, atol=1e-2)
