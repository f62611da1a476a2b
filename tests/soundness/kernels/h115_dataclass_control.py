"""Probe h115's control: tiling data in a module-level data class instance (`TILING.stride`, 64 rows
between tasks), the cube stage loading `x` rows the vector stage of the task before stored past: apart
while the stride is what the check folds. Each hole is an edit of it."""

from dataclasses import dataclass

import pypto_pro.language as pl

BLOCK = 32
HALF = BLOCK // 2


@dataclass
class Tiling:
    stride: int = BLOCK
    scale: float = 0.5


TILING = Tiling(stride=2 * BLOCK)


@pl.pipeline.stage
def mix(i, x, w_slot, x_l1_db, left_db, right_db, acc_db, c_vec_db):
    cur = x_l1_db.next()
    pl.load(cur, x, [i * TILING.stride, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur)
    pl.move(right, w_slot)
    pl.matmul(acc, left, right)
    c = c_vec_db.next()
    pl.move(c, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def finish(i, sub_id, x, c_vec_db, y_db):
    c = c_vec_db.next()
    y = y_db.next()
    pl.muls(y, c, TILING.scale)
    pl.store(x, y, [i * TILING.stride + BLOCK + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def chain(
    x: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],
):
    c_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[8, 9], fwd_ids=[0, 1], bwd_ids=[2, 3],
    )
    with pl.section_cube():
        x_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000, mutex_ids=[0, 1],
        )
        w_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000, mutex_ids=[2],
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
        w_slot = w_l1.current()
        pl.load(w_slot, w, [0, 0])
    with pl.section_vector():
        y_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000, mutex_ids=[10, 11],
        )
    sub_id = pl.get_subblock_idx()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    n_tiles = x.shape[0] // (2 * BLOCK)
    for i in pl.range(core_id, n_tiles, num_cores):
        with pl.section_cube():
            mix(i, x, w_slot, x_l1_db, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            finish(i, sub_id, x, c_vec_db, y_db)
