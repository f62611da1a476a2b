"""A stage scales by a float made from a residue of its iteration (`1.0 + ki % 2`): one value per
residue, as `2.0 if ki % 2 == 1 else 1.0` (probe h96). Valid for every trip count."""

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
def scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring):
    c_vec = c_vec_db.next()
    y = y_db.next()
    if ki == 0:
        pl.relu(y, c_vec)
    else:
        pl.add(y, c_vec, bias_ring[ki % 3])
    pl.muls(y, y, 1.0 + ki % 2)
    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])
    if ki == n - 1:
        pl.store(last, y, [sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    last: pl.Tensor[[TILE, TILE], pl.DT_FP32],
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
        bias_0 = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                              addr=0x8000)
        bias_1 = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                              addr=0x9000)
        bias_2 = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                              addr=0xA000)
        pl.full(bias_0, 1.0)
        pl.full(bias_1, 2.0)
        pl.full(bias_2, 3.0)
        bias_ring = (bias_0, bias_1, bias_2)
        y_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x4000,
            mutex_ids=[12, 13],
        )
    for ki in pl.range(0, n):
        with pl.section_cube():
            mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(ki, n, sub_id, out, last, c_vec_db, y_db, bias_ring)
