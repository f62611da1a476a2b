"""A balanced split of the row tiles over the blocks, the first `rem` blocks taking one more: its end
raised by an `if` on the block index. The cube stores A_i @ A_i, the vector cores relu of it over the same rows."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.pipeline.stage
def mm_stage(ki, d, a, out, a_l1, left_db, right_db, acc_db, c_vec_db):
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
def scale_store(ki, d, sub_id, out, c_vec_db, y_db):
    c_vec = c_vec_db.next()
    y = y_db.next()
    pl.relu(y, c_vec)
    shift = 0
    pl.store(out, y, [(ki + shift) * TILE + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    d: pl.DT_INT32,
):
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
    n_tiles = a.shape[0] // TILE
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    base = n_tiles // num_cores
    rem = n_tiles % num_cores
    start = core_id * base + pl.min(core_id, rem)
    end = start + base
    if core_id < rem:
        end = end + 1
    for ki in pl.range(start, end):
        with pl.section_cube():
            mm_stage(ki, d, a, out, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(ki, d, sub_id, out, c_vec_db, y_db)
