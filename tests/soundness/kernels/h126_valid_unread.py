"""Probe h126's hole: a `valid_shape=` the check could not evaluate (`list(map(int, (QUART, BLOCK)))`),
taken for the declared shape, exact: a partial write counted as covering the whole tile and cut an
earlier load of the aliased bytes, and a pipelining moving that load a task ahead was accepted; the
outputs differed. Read now as a valid shape of run-time values, it is refused as the written-out one is."""

import pypto_pro.language as pl

BLOCK = 32
HALF = BLOCK // 2
QUART = HALF // 2


@pl.pipeline.stage
def project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj1_db):
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [i * BLOCK, 0])
    left = left_db.next()
    right = right_db.next()
    pl.move(left, cur_a)
    pl.move(right, w_slot)
    acc = acc_db.next()
    pl.matmul(acc, left, right)
    proj = proj1_db.next()
    pl.move(proj, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def copy(i, sub_id, x, scr_g, out2, proj1_db):
    scr = scr_g.current()
    proj = proj1_db.next()
    pl.store(out2, proj, [i * BLOCK + sub_id * HALF, 0])
    pl.load(scr, x, [i * BLOCK + sub_id * HALF, 0])


@pl.pipeline.stage
def drain(i, a, w_slot, a2_db, left2_db, right2_db, acc2_db, proj_vec_db):
    cur_a = a2_db.next()
    pl.load(cur_a, a, [i * BLOCK, 0])
    left = left2_db.next()
    right = right2_db.next()
    pl.move(left, cur_a)
    pl.move(right, w_slot)
    acc = acc2_db.next()
    pl.matmul(acc, left, right)
    proj = proj_vec_db.next()
    pl.move(proj, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def finish(i, sub_id, scale, out, proj_vec_db, res_g, res_full_g):
    res = res_g.current()
    res_full = res_full_g.current()
    proj = proj_vec_db.next()
    pl.muls(res, proj, scale)
    pl.store(out, res_full, [i * BLOCK + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def valid_kernel(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],
    x: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    out2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    scale: pl.DT_FP32,
):
    proj_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x10000,
        mutex_ids=[8, 9],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    proj1_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x20000,
        mutex_ids=[12, 13],
        fwd_ids=[4, 5],
        bwd_ids=[6, 7],
    )
    with pl.section_cube():
        a2_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x10000,
            mutex_ids=[14, 15],
        )
        left2_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x8000,
            mutex_ids=[16, 17],
        )
        right2_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x8000,
            mutex_ids=[18, 19],
        )
        acc2_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x8000,
            mutex_ids=[20, 21],
        )
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
        w_slot = w_l1.current()
        pl.load(w_slot, w, [0, 0])
    with pl.section_vector():
        res_g = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                             valid_shape=list(map(int, (QUART, BLOCK)))),
            addrs=0x18000,
            mutex_ids=[10],
        )
        res_full_g = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x18000,
            mutex_ids=[10],
        )
        scr_g = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x18000,
            mutex_ids=[10],
        )
    sub_id = pl.get_subblock_idx()
    n_blocks = a.shape[0] // BLOCK
    for i in pl.range(0, n_blocks):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj1_db)
        with pl.section_vector():
            copy(i, sub_id, x, scr_g, out2, proj1_db)
        with pl.section_cube():
            drain(i, a, w_slot, a2_db, left2_db, right2_db, acc2_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, scale, out, proj_vec_db, res_g, res_full_g)
