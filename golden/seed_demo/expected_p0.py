"""Demo kernel from the feature description: relu(A @ B) @ D as a 4-stage CV pipeline.

One 1:2 CV execution group (block_dim=1): the cube core computes the two matmuls, the two
vector cores (AIV 0 and 1) each handle one half of every tile along M.

Stages, in loop order (cube and vector alternate):
  stage1 (cube)   mm1 = A_i @ B          -> mm1_vec_db   (cross-core, Vec)
  stage2 (vector) relu, to NZ, insert    -> p_mat_db     (cross-core, Mat)
  stage3 (cube)   mm2 = relu(mm1) @ D    -> out_vec_db   (cross-core, Vec)
  stage4 (vector) store this AIV's half of the result to GM

The kernel is written SERIALLY and contains no cross-core synchronisation; the pipeline
transform inserts all of it.
"""

import os

import pypto_pro.language as pl
import pytest
import torch
import torch_npu  # noqa: F401  (registers the NPU device with torch)

import pypto

ST_DEVICE_ID = int(os.environ.get("TILE_FWK_DEVICE_ID", 0))
ST_DEVICE = f"npu:{ST_DEVICE_ID}"

TILE = 64
TILE_HALF = TILE // 2  # dual mode splits along M: each AIV handles one half
N_ITER = 4


@pl.pipeline.stage
def stage1(ki, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db):
    """Cube: mm1 = A_i @ B."""
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [ki * TILE, 0])
    b_slot = b_l1.current()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, b_slot)
    pl.matmul(acc, left, right)
    mm1_vec = mm1_vec_db.next()
    # DualModeSplitM: the [TILE, TILE] acc is split along M, each AIV gets [TILE_HALF, TILE]
    pl.move(mm1_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):
    """Vector: relu on this AIV's half, convert to NZ, insert it into the L1 buffer by row offset."""
    mm1_vec = mm1_vec_db.next()
    relu_vec = relu_vec_db.next()
    pl.relu(relu_vec, mm1_vec)
    relu_nz = relu_nz_db.next()
    pl.move(relu_nz, relu_vec)  # ND -> NZ (insert needs an NZ source tile)
    p_mat = p_mat_db.next()
    pl.insert(p_mat, relu_nz, [sub_id * TILE_HALF, 0])


@pl.pipeline.stage
def stage3(ki, d_l1, p_mat_db, left_db, right_db, acc_db, out_vec_db):
    """Cube: mm2 = relu(mm1) @ D."""
    d_slot = d_l1.current()
    p_mat = p_mat_db.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, p_mat)
    pl.move(right, d_slot)
    pl.matmul(acc, left, right)
    out_vec = out_vec_db.next()
    pl.move(out_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def stage4(ki, sub_id, out, out_vec_db):
    """Vector: each AIV writes its half of this iteration's result back to GM."""
    out_vec = out_vec_db.next()
    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])


# Written by pto-transpile (digest e20ddadf856c797f): edit the serial kernel it came from, not this one.
@pl.jit(auto_mutex=True)
def pipeline_demo_kernel(
    a: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    d: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],
):
    # Cross-core shared buffers: fwd_ids/bwd_ids tell the transform where to insert sync
    mm1_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000,
        mutex_ids=[12, 13],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    p_mat_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=0x8000,
        mutex_ids=[14, 15],
        fwd_ids=[4, 5],
        bwd_ids=[6, 7],
    )
    out_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x10000,
        mutex_ids=[16, 17],
        fwd_ids=[8, 9],
        bwd_ids=[10, 11],
    )

    # Cube-local buffers
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[0, 1],
        )
        b_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x10000,
            mutex_ids=[2],
        )
        d_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x14000,
            mutex_ids=[3],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[4, 5],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0000,
            mutex_ids=[6, 7],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(
                shape=[TILE, TILE],
                dtype=pl.DT_FP32,
                target_memory=pl.MemorySpace.Acc,
                layout=pl.NZ,
                fractal=1024,
            ),
            addrs=0x0000,
            mutex_ids=[8, 9, 10, 11],
        )
        # B and D are loaded once, before the loop, and reused by every iteration
        b_slot = b_l1.current()
        d_slot = d_l1.current()
        pl.load(b_slot, b, [0, 0])
        pl.load(d_slot, d, [0, 0])

    # Vector-local buffers
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        relu_vec_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000,
            mutex_ids=[18, 19],
        )
        relu_nz_db = pl.make_tile_group(
            type=pl.TileType(
                shape=[TILE_HALF, TILE],
                dtype=pl.DT_FP32,
                target_memory=pl.MemorySpace.Vec,
                layout=pl.NZ,
            ),
            addrs=0x18000,
            mutex_ids=[20, 21],
        )

    _pl_fwd_ids_mm1_vec_db = [0, 1]
    _pl_bwd_ids_mm1_vec_db = [2, 3]
    _pl_fwd_ids_p_mat_db = [4, 5]
    _pl_bwd_ids_p_mat_db = [6, 7]
    _pl_fwd_ids_out_vec_db = [8, 9]
    _pl_bwd_ids_out_vec_db = [10, 11]
    _pl_sync_id = 0
    with pl.section_vector():
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_mm1_vec_db[0])
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_mm1_vec_db[1])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_out_vec_db[0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_out_vec_db[1])
    with pl.section_cube():
        pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_p_mat_db[0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_p_mat_db[1])
    # The pipeline loop: the 4 stages, cube and vector alternating
    for ki in pl.range(0, N_ITER):
        with pl.section_cube():
            pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_mm1_vec_db[_pl_sync_id % 2])
            stage1(ki, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db)
            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_fwd_ids_mm1_vec_db[_pl_sync_id % 2])
        with pl.section_vector():
            pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=_pl_fwd_ids_mm1_vec_db[_pl_sync_id % 2])
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_p_mat_db[_pl_sync_id % 2])
            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)
            pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_mm1_vec_db[_pl_sync_id % 2])
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_fwd_ids_p_mat_db[_pl_sync_id % 2])
        with pl.section_cube():
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_fwd_ids_p_mat_db[_pl_sync_id % 2])
            pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_out_vec_db[_pl_sync_id % 2])
            stage3(ki, d_l1, p_mat_db, left_db, right_db, acc_db, out_vec_db)
            pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_p_mat_db[_pl_sync_id % 2])
            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_fwd_ids_out_vec_db[_pl_sync_id % 2])
        with pl.section_vector():
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_fwd_ids_out_vec_db[_pl_sync_id % 2])
            stage4(ki, sub_id, out, out_vec_db)
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_out_vec_db[_pl_sync_id % 2])
        _pl_sync_id = _pl_sync_id + 1
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_mm1_vec_db[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_mm1_vec_db[1])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_out_vec_db[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_out_vec_db[1])
    with pl.section_vector():
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_p_mat_db[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_p_mat_db[1])


@pytest.mark.soc(950)
@pypto.options(pass_options={"enable_slice": False})
def test_pipeline_demo_kernel():
    device = ST_DEVICE
    torch.npu.set_device(device)
    torch.manual_seed(0)
    a = torch.randn(N_ITER * TILE, TILE, device=device, dtype=torch.float32)
    b = torch.randn(TILE, TILE, device=device, dtype=torch.float32)
    d = torch.randn(TILE, TILE, device=device, dtype=torch.float32)
    out = torch.zeros(N_ITER * TILE, TILE, device=device, dtype=torch.float32)
    pipeline_demo_kernel[None, 1](a, b, d, out)
    torch.npu.synchronize()
    ref = torch.relu(a @ b) @ d
    torch.testing.assert_close(out, ref, rtol=1e-2, atol=1e-2)
