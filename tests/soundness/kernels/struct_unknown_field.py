"""out2_i = scale * ones, out_i = relu(A_i @ A_i); the last stage of the first task sets
scale = |alpha|. Serially the fill of task 1 scales by |alpha|; pipelined (preload 1) it runs
before task 0's last stage and scales by 1.0."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.pipeline.stage
def fill(ki, sub_id, scale, out2, z_vec, w_db):
    w = w_db.next()
    pl.muls(w, z_vec, scale)
    pl.store(out2, w, [ki * TILE + sub_id * HALF, 0])


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
def scale_store(ki, alpha, sub_id, st, out, c_vec_db, y_db):
    c_vec = c_vec_db.next()
    y = y_db.next()
    pl.relu(y, c_vec)
    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])
    if ki == 0:
        st.scale = abs(alpha)


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out2: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    n: pl.DT_INT32,
    alpha: pl.DT_FP32,
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
        st = pl.struct(scale=1.0)
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
    for ki in pl.range(0, n):
        with pl.section_vector():
            fill(ki, sub_id, st.scale, out2, z_vec, w_db)
        with pl.section_cube():
            mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(ki, alpha, sub_id, st, out, c_vec_db, y_db)
