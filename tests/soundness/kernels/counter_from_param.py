"""A ring of 7 row tiles in `out2`: task i fills row tile (d + i) % 7 with twos (counter `c`,
started at the parameter `d`); the last stage of task 0 also stores relu(A_0 @ A_0) into row tile 0.
When d % 7 == 6, task 1's fill meets that store, and the pipeline swaps them."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.pipeline.stage
def fill(ki, c, sub_id, out2, z_vec, w_db):
    w = w_db.next()
    pl.muls(w, z_vec, 2.0)
    pl.store(out2, w, [(c % 7) * TILE + sub_id * HALF, 0])


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
def scale_store(ki, sub_id, out2, out, c_vec_db, y_db):
    c_vec = c_vec_db.next()
    y = y_db.next()
    pl.relu(y, c_vec)
    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])
    if ki == 0:
        pl.store(out2, y, [sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out2: pl.Tensor[[7 * TILE, TILE], pl.DT_FP32],
    n: pl.DT_INT32,
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
        z_vec = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                             addr=0x8000)
        w_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0xC000,
            mutex_ids=[14, 15],
        )
        pl.full(z_vec, 1.0)
    c = d
    for ki in pl.range(0, n):
        with pl.section_vector():
            fill(ki, c, sub_id, out2, z_vec, w_db)
        with pl.section_cube():
            mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(ki, sub_id, out2, out, c_vec_db, y_db)
        c = c + 1
