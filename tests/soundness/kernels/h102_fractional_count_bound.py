"""A test of a trip count against a number that is not whole, `n <= -0.5`, was read as `n <= 0`:
the run at n = -1, where its branch races, was never made (probe h102)."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.pipeline.stage
def mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db):
    cur_a = a_l1.next()
    pl.load(cur_a, a, [ki * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, cur_a)
    pl.matmul(acc, left, right)
    c_vec = c_vec_db.next()
    pl.move(c_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def store_stage(ki, n, sub_id, dst, a, c_vec_db, y_db):
    c_vec = c_vec_db.next()
    y = y_db.next()
    pl.muls(y, c_vec, 0.5)
    if n <= -0.5:
        # legacy layout: write back in place one tile ahead
        pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])
    else:
        pl.store(dst, y, [ki * TILE + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    warm: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    n: pl.DT_INT32,
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
    for ki in pl.range(0, n):
        with pl.section_cube():
            mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            store_stage(ki, 0, sub_id, warm, a, c_vec_db, y_db)
    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)
    m = a.shape[0] // TILE - 1
    for ki in pl.range(0, m):
        with pl.section_cube():
            mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            store_stage(ki, n, sub_id, out, a, c_vec_db, y_db)
