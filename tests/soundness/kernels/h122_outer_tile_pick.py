"""Probe h122's misleading refusal: a bias tile picked in the loop around the pipeline loop
(`bias = biases[h % 2]`) and handed to a stage: PTO054 called it maybe a scalar and asked for a dtype
annotation, which the check then refused as a tile in a field of numbers. The fix is to pass the pick
itself in the stage call."""

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
def scale_store(ki, h, sub_id, out, bias, c_vec_db, y_db):
    c_vec = c_vec_db.next()
    y = y_db.next()
    pl.add(y, c_vec, bias)
    pl.store(out, y, [(h * 4 + ki) * TILE + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[4 * TILE, TILE], pl.DT_FP32],
    bias_in: pl.Tensor[[2 * HALF, TILE], pl.DT_FP32],
    out: pl.Tensor[[8 * TILE, TILE], pl.DT_FP32],
):
    n = 4
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
        b0 = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                          addr=0x8000)
        b1 = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                          addr=0x9000)
        pl.load(b0, bias_in, [0, 0])
        pl.load(b1, bias_in, [HALF, 0])
        biases = (b0, b1)
    pl.system.sync_all()
    for h in pl.range(0, 2):
        with pl.section_vector():
            bias = biases[h % 2]
        for ki in pl.range(0, n):
            with pl.section_cube():
                mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)
            with pl.section_vector():
                scale_store(ki, h, sub_id, out, bias, c_vec_db, y_db)
