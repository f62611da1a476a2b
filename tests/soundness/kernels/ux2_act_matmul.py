"""out = act(A @ W) * scale, per 64-row tile, production style."""
from dataclasses import dataclass

import pypto_pro.language as pl
from pypto_pro.runtime.tilingkey import TilingKeyField

TM = 64          # rows of A per tile
K = 32
N = 32
HALF = TM // 2   # each AIV finishes half a tile


@dataclass
class MatTiling:
    n_tiles: int
    tile_rows: int


class ActKey:
    Act = TilingKeyField(bits=2, values=[0, 1, 2])   # 0: none, 1: relu, 2: exp


def tile_type(rows, cols, mem):
    return pl.TileType(shape=[rows, cols], dtype=pl.DT_FP32, target_memory=mem)


def activation(dst, src, scale):
    if Act == 1:  # noqa: F821
        pl.relu(dst, src)
        pl.muls(dst, dst, scale)
    elif Act == 2:  # noqa: F821
        pl.exp(dst, src)
        pl.muls(dst, dst, scale)
    else:
        pl.muls(dst, src, scale)


@pl.pipeline.stage
def mm_stage(i, n_rows, a, w_slot, a_l1_db, left_db, right_db, acc_db, c_vec_db):
    rows = pl.min(TM, n_rows - i * TM)
    cur_a = a_l1_db.next()
    pl.set_validshape(cur_a, [rows, K])
    pl.load(cur_a, a, [i * TM, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, w_slot)
    pl.matmul(acc, left, right)
    c = c_vec_db.next()
    pl.move(c, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def act_stage(i, n_rows, sub_id, scale, out, c_vec_db, res_db):
    rows = pl.min(TM, n_rows - i * TM)
    mine = pl.min(HALF, rows - sub_id * HALF)
    c = c_vec_db.next()
    res = res_db.next()
    activation(res, c, scale)
    if mine > 0:
        pl.set_validshape(res, [mine, N])
        pl.store(out, res, [i * TM + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, tiling_key=ActKey, pipeline=pl.pipeline.PipelineConfig(preload=1))
def act_matmul(
    a: pl.Tensor[[pl.DYNAMIC, K], pl.DT_FP32],
    w: pl.Tensor[[K, N], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, N], pl.DT_FP32],
    n_rows: pl.DT_INT32,
    scale: pl.DT_FP32,
    tiling: MatTiling,
):
    c_vec_db = pl.make_tile_group(
        type=tile_type(HALF, N, pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[8, 9], fwd_ids=[0, 1], bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(type=tile_type(TM, K, pl.MemorySpace.Mat), addrs=0x0000, mutex_ids=[0, 1])
        w_l1 = pl.make_tile_group(type=tile_type(K, N, pl.MemorySpace.Mat), addrs=0x10000, mutex_ids=[2])
        left_db = pl.make_tile_group(type=tile_type(TM, K, pl.MemorySpace.Left), addrs=0x0000, mutex_ids=[3, 4])
        right_db = pl.make_tile_group(type=tile_type(K, N, pl.MemorySpace.Right), addrs=0x0000, mutex_ids=[5])
        acc_db = pl.make_tile_group(type=tile_type(TM, N, pl.MemorySpace.Acc), addrs=0x0000, mutex_ids=[6, 7])
        w_slot = w_l1.current()
        pl.load(w_slot, w, [0, 0])
    with pl.section_vector():
        res_db = pl.make_tile_group(type=tile_type(HALF, N, pl.MemorySpace.Vec), addrs=0x8000, mutex_ids=[10, 11])
    sub_id = pl.get_subblock_idx()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    n_tiles = (n_rows + TM - 1) // TM
    for i in pl.range(core_id, n_tiles, num_cores):
        with pl.section_cube():
            mm_stage(i, n_rows, a, w_slot, a_l1_db, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            act_stage(i, n_rows, sub_id, scale, out, c_vec_db, res_db)
