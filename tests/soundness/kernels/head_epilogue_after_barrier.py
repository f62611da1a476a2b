"""Per head h: ws[:, h] = relu(a[:, h] @ a[:, h]) tile by tile; then out[h] = 2 * ws[last tile of h]."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2
H = 2


@pl.pipeline.stage
def mm_stage(ki, h, a, a_l1, left_db, right_db, acc_db, c_vec_db):
    cur_a = a_l1.next()
    pl.load(cur_a, a, [ki * TILE, h * TILE])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, cur_a)
    pl.matmul(acc, left, right)
    c_vec = c_vec_db.next()
    pl.move(c_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def relu_store(ki, h, sub_id, ws, c_vec_db, y_db):
    c_vec = c_vec_db.next()
    y = y_db.next()
    pl.relu(y, c_vec)
    pl.store(ws, y, [ki * TILE + sub_id * HALF, h * TILE])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, H * TILE], pl.DT_FP32],
    ws: pl.Tensor[[pl.DYNAMIC, H * TILE], pl.DT_FP32],
    out: pl.Tensor[[TILE, H * TILE], pl.DT_FP32],
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
        e_g = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000,
            mutex_ids=[14],
        )
    n_tiles = a.shape[0] // TILE
    for h in pl.range(0, H):
        for ki in pl.range(0, n_tiles):
            with pl.section_cube():
                mm_stage(ki, h, a, a_l1, left_db, right_db, acc_db, c_vec_db)
            with pl.section_vector():
                relu_store(ki, h, sub_id, ws, c_vec_db, y_db)
        pl.system.sync_all(core_type=pl.SyncCoreType.MIX)
        with pl.section_vector():
            e = e_g.current()
            pl.load(e, ws, [(n_tiles - 1) * TILE + sub_id * HALF, h * TILE])
            pl.muls(e, e, 2.0)
            pl.store(out, e, [sub_id * HALF, h * TILE])
