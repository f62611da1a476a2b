"""Probe h122's misleading refusal: `is_valid` written with a loop, which the check does not follow,
so it proves the instance MODE=1, WIDE=1 that `is_valid` rules out, where the two stores are at
different strides; the refusal did not say which instance, nor why it was kept."""

import pypto_pro.language as pl
from pypto_pro.runtime.tilingkey import TilingKeyField

TILE = 32
HALF = TILE // 2


class Key:
    MODE = TilingKeyField(bits=1, values=[0, 1])
    WIDE = TilingKeyField(bits=1, values=[0, 1])

    def is_valid(self, key):
        for v in key:
            if v == 0:
                return True
        return False


@pl.pipeline.stage
def mm_stage(ki, a, out, a_l1, left_db, right_db, acc_db, c_vec_db):
    cur_a = a_l1.next()
    pl.load(cur_a, a, [ki * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, cur_a)
    pl.matmul(acc, left, right)
    pl.store(out, acc, [ki * TILE, 0])
    c_vec = c_vec_db.next()
    pl.move(c_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def scale_store(ki, sub_id, out, c_vec_db, y_db):
    c_vec = c_vec_db.next()
    y = y_db.next()
    pl.muls(y, c_vec, 2.0)
    pl.store(out, y, [(ki + MODE * WIDE) * TILE + sub_id * HALF, 0])  # noqa: F821 (tiling-key fields)


@pl.jit(auto_mutex=True, tiling_key=Key, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
):
    n = a.shape[0] // TILE
    c_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0,
        mutex_ids=[0, 1],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[4, 5],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[6, 7],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0,
            mutex_ids=[8, 9],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[10, 11],
        )
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        y_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x4000,
            mutex_ids=[12, 13],
        )
    for ki in pl.range(0, n):
        with pl.section_cube():
            mm_stage(ki, a, out, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(ki, sub_id, out, c_vec_db, y_db)
