"""A GEMM written as production kernels are: `pl.DYNAMIC` M and K, a K loop in the cube stage,
a per-core range over the row tiles, a bias tile loaded before the loop behind `sync_all`, a
scalar parameter, a relu chosen by a tiling key, and tiling data in a module-level data class
instance (`TILING.rows`, `TILING.scale`), which the check reads as the constant it is."""

from dataclasses import dataclass

import pypto_pro.language as pl
from pypto_pro.runtime.tilingkey import TilingKeyField

BLOCK = 32
HALF = BLOCK // 2


@dataclass(frozen=True)
class GemmTiling:
    scale: float = 0.5
    rows: int = BLOCK


TILING = GemmTiling()


class EpiKey:
    WITH_RELU = TilingKeyField(bits=1, values=[0, 1])


@pl.pipeline.stage
def gemm(i, k_tiles, a, b, a_l1_db, b_l1_db, left_db, right_db, acc_db, c_vec_db):
    acc = acc_db.next()
    for kk in pl.range(0, k_tiles):
        cur_a = a_l1_db.next()
        pl.load(cur_a, a, [i * BLOCK, kk * BLOCK])
        cur_b = b_l1_db.next()
        pl.load(cur_b, b, [kk * BLOCK, 0])
        left = left_db.next()
        right = right_db.next()
        pl.move(left, cur_a)
        pl.move(right, cur_b)
        if kk == 0:
            pl.matmul(acc, left, right)
        else:
            pl.matmul_acc(acc, acc, left, right)
    c = c_vec_db.next()
    pl.move(c, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def epilogue(i, sub_id, out, alpha, bias_tile, c_vec_db, y_db):
    c = c_vec_db.next()
    y = y_db.next()
    pl.add(y, c, bias_tile)
    pl.muls(y, y, TILING.scale * alpha)
    if WITH_RELU == 1:  # noqa: F821 (a tiling-key field: the JIT binds it in every function)
        pl.relu(y, y)
    pl.store(out, y, [i * TILING.rows + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, tiling_key=EpiKey, pipeline=pl.pipeline.PipelineConfig(preload=1))
def gemm_epi(
    a: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    b: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    bias: pl.Tensor[[HALF, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    alpha: pl.DT_FP32,
):
    c_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[8, 9], fwd_ids=[0, 1], bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000, mutex_ids=[0, 1],
        )
        b_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000, mutex_ids=[2, 12],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x0000, mutex_ids=[3, 4],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x0000, mutex_ids=[5, 13],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000, mutex_ids=[6, 7],
        )
    with pl.section_vector():
        y_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000, mutex_ids=[10, 11],
        )
        bias_tile = pl.make_tile(pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32,
                                             target_memory=pl.MemorySpace.Vec), addr=0x10000)
        pl.load(bias_tile, bias, [0, 0])
    pl.system.sync_all()
    sub_id = pl.get_subblock_idx()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    m_tiles = a.shape[0] // BLOCK
    k_tiles = a.shape[1] // BLOCK
    for i in pl.range(core_id, m_tiles, num_cores):
        with pl.section_cube():
            gemm(i, k_tiles, a, b, a_l1_db, b_l1_db, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            epilogue(i, sub_id, out, alpha, bias_tile, c_vec_db, y_db)
