"""A serial cube/vector kernel specialised on a tiling key and driven by tiling data.

out[i] = post(A_i @ B) for every row block i of A, spread over the blocks with a strided
loop over `n_tiles` row blocks; `ApplyRelu` (a tiling-key field, a compile-time name)
chooses the vector epilogue and the tiling data (a module-level dataclass) carries the scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import pypto_pro.language as pl
from pypto_pro.runtime.tilingkey import TilingKeyField

TILE = 32
HALF = TILE // 2


@dataclass
class ScaleTiling:
    scale: float
    bias_rows: int = 0


class EpilogueKey:
    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])


def epilogue(dst, src, scale):
    """Vector epilogue: scale, then relu when the key asks for it (a plain helper reading the
    compile-time field)."""
    pl.muls(dst, src, scale)
    if ApplyRelu == 1:  # noqa: F821 - bound per tiling-key instance
        pl.relu(dst, dst)


@pl.pipeline.stage
def mm_stage(i, a, b_slot, a_l1_db, left_db, right_db, acc_db, mm_vec_db):
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [i * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, b_slot)
    pl.matmul(acc, left, right)
    mm_vec = mm_vec_db.next()
    pl.move(mm_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def post_stage(i, sub_id, scale, out, mm_vec_db, res_db):
    mm_vec = mm_vec_db.next()
    res = res_db.next()
    epilogue(res, mm_vec, scale)
    pl.store(out, res, [i * TILE + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, tiling_key=EpilogueKey, pipeline=pl.pipeline.PipelineConfig(preload=1))
def tiled_scale_kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    n_tiles: pl.DT_INT32,
    tiling: ScaleTiling,
):
    mm_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[8, 9], fwd_ids=[0, 1], bwd_ids=[2, 3])
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000, mutex_ids=[0, 1])
        b_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000, mutex_ids=[2])
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x0000, mutex_ids=[3, 4])
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x0000, mutex_ids=[5])
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000, mutex_ids=[6, 7])
        b_slot = b_l1.current()
        pl.load(b_slot, b, [0, 0])
    with pl.section_vector():
        res_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000, mutex_ids=[10, 11])
    sub_id = pl.get_subblock_idx()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    for i in pl.range(core_id, n_tiles, num_cores):
        with pl.section_cube():
            mm_stage(i, a, b_slot, a_l1_db, left_db, right_db, acc_db, mm_vec_db)
        with pl.section_vector():
            post_stage(i, sub_id, tiling.scale, out, mm_vec_db, res_db)
