"""examples/tiled_scale.py with a vector-only epilogue after the pipeline loop whose pieces are spread
over every vector core by the flattened index, `pl.range(pl.get_block_idx(), pieces, pl.get_block_num()
* pl.get_subblock_num())` (probe h98). Valid, outside what the check follows (cores in step)."""

import os
from dataclasses import dataclass

import pypto
import pypto_pro.language as pl
import pytest
import torch
import torch_npu  # noqa: F401  (registers the NPU device with torch)
from pypto_pro.runtime.tilingkey import TilingKeyField

ST_DEVICE_ID = int(os.environ.get("TILE_FWK_DEVICE_ID", 0))
ST_DEVICE = f"npu:{ST_DEVICE_ID}"

BLOCK = 32  # rows of A per pipeline iteration
HALF = BLOCK // 2  # dual mode splits along M: each AIV finishes one half


@dataclass
class ScaleTiling:
    """Tiling data computed on the host."""

    scale: float


class EpilogueKey:
    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])


def epilogue(dst, src, scale):
    """Scale, then relu in the instance that asks for it."""
    pl.muls(dst, src, scale)
    if ApplyRelu == 1:  # noqa: F821  (a tiling-key field, bound by the JIT)
        pl.relu(dst, dst)


@pl.pipeline.stage
def project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db):
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [i * BLOCK, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, w_slot)
    pl.matmul(acc, left, right)
    proj = proj_vec_db.next()
    pl.move(proj, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def finish(i, sub_id, scale, out, proj_vec_db, res_db):
    proj = proj_vec_db.next()
    res = res_db.next()
    epilogue(res, proj, scale)
    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, tiling_key=EpilogueKey, pipeline=pl.pipeline.PipelineConfig(preload=1))
def tiled_scale_kernel(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    c: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    out2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    tiling: ScaleTiling,
):
    proj_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000,
        mutex_ids=[8, 9],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000,
            mutex_ids=[0, 1],
        )
        w_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000,
            mutex_ids=[2],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x0000,
            mutex_ids=[3, 4],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x0000,
            mutex_ids=[5],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000,
            mutex_ids=[6, 7],
        )
        # W stays in L1 for the whole kernel
        w_slot = w_l1.current()
        pl.load(w_slot, w, [0, 0])
    with pl.section_vector():
        res_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000,
            mutex_ids=[10, 11],
        )
    sub_id = pl.get_subblock_idx()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    n_blocks = a.shape[0] // BLOCK
    for i in pl.range(core_id, n_blocks, num_cores):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)
    # an epilogue on the vector cores alone: relu of `c`, its HALF-row pieces spread over every
    # vector core by the flattened AIV index (pypto_pro_docs get_block_idx.md)
    with pl.section_vector():
        e_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x10000,
            mutex_ids=[12, 13],
        )
        pieces = c.shape[0] // HALF
        for p in pl.range(pl.get_block_idx(), pieces, pl.get_block_num() * pl.get_subblock_num()):
            e = e_db.next()
            pl.load(e, c, [p * HALF, 0])
            pl.relu(e, e)
            pl.store(out2, e, [p * HALF, 0])


@pytest.mark.soc(950)
@pytest.mark.parametrize("apply_relu", [0, 1])
@pypto.options(pass_options={"enable_slice": False})
def test_tiled_scale_kernel(apply_relu):
    device = ST_DEVICE
    torch.npu.set_device(device)
    torch.manual_seed(0)
    rows = 40 * BLOCK
    a = torch.randn(rows, BLOCK, device=device, dtype=torch.float32)
    w = torch.randn(BLOCK, BLOCK, device=device, dtype=torch.float32)
    out = torch.zeros(rows, BLOCK, device=device, dtype=torch.float32)
    tiling = ScaleTiling(scale=0.5)  # tiling data goes last
    tiled_scale_kernel[None, 8, {"ApplyRelu": apply_relu}](a, w, out, tiling)
    torch.npu.synchronize()
    ref = (a @ w) * tiling.scale
    if apply_relu:
        ref = torch.relu(ref)
    torch.testing.assert_close(out, ref, rtol=1e-2, atol=1e-2)
