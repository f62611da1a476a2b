"""a tile type made per iteration in kernel-body code (`valid_shape=` known only at run
time) and handed to a delayed stage is not carried in the ctx ring, and the check cannot tell. (probe h99)"""
from dataclasses import dataclass

import pypto_pro.language as pl
from pypto_pro.runtime.tilingkey import TilingKeyField

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
def finish(i, sub_id, scale, out, out2, proj_vec_db, res_db, ty):
    proj = proj_vec_db.next()
    res = res_db.next()
    epilogue(res, proj, scale)
    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])
    t = pl.make_tile(ty, addr=0x10000)
    pl.system.bar_all()
    pl.muls(t, proj, 2.0)
    pl.system.bar_all()
    pl.store(out2, t, [i * BLOCK + sub_id * HALF, 0])
    pl.system.bar_all()


@pl.jit(auto_mutex=True, tiling_key=EpilogueKey, pipeline=pl.pipeline.PipelineConfig(preload=1))
def tiled_scale_kernel(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    out2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    d: pl.DT_INT32,
    e: pl.DT_INT32,
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
    core_id = pl.get_block_idx() // pl.get_subblock_num()  # noqa: F841  (as the example)
    num_cores = pl.get_block_num()  # noqa: F841  (as the example)
    n_blocks = a.shape[0] // BLOCK
    for i in pl.range(0, n_blocks):
        with pl.section_vector():
            ty = pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                             valid_shape=[d if i % 2 == 0 else e, BLOCK])
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, tiling.scale, out, out2, proj_vec_db, res_db, ty)


