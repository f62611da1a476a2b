"""Probe h126's hole: the cube computes into an Acc group declared with `target_memory="Acc"` (a string,
which the emulator takes as the space it names; the check took it for Vec, so the matmul's writes
went unseen) and a later cube stage moves the result out through a second group over the same Acc
bytes and mutex ids. Pipelined at preload 2, the outputs differed."""

import pypto_pro.language as pl

BLOCK = 32
HALF = BLOCK // 2


@pl.pipeline.stage
def project(i, a, w_slot, a_l1_db, left_db, right_db, acc_w_db):
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [i * BLOCK, 0])
    left = left_db.next()
    right = right_db.next()
    pl.move(left, cur_a)
    pl.move(right, w_slot)
    acc = acc_w_db.next()
    pl.matmul(acc, left, right)


@pl.pipeline.stage
def copy(i, sub_id, x, out2, tmp_db):
    t = tmp_db.next()
    pl.load(t, x, [i * BLOCK + sub_id * HALF, 0])
    pl.store(out2, t, [i * BLOCK + sub_id * HALF, 0])


@pl.pipeline.stage
def drain(i, acc_r_db, proj_vec_db):
    acc = acc_r_db.next()
    proj = proj_vec_db.next()
    pl.move(proj, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def finish(i, sub_id, out, proj_vec_db):
    proj = proj_vec_db.next()
    pl.store(out, proj, [i * BLOCK + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def acc_alias_kernel(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    x: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    out2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
):
    proj_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x10000,
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
        # the matmul writes the Acc bytes through this group ...
        acc_w_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory="Acc"),
            addrs=0x0000,
            mutex_ids=[6, 7],
        )
        # ... and the fixpipe reads them through this one (same bytes, same mutex ids)
        acc_r_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000,
            mutex_ids=[6, 7],
        )
        w_slot = w_l1.current()
        pl.load(w_slot, w, [0, 0])
    with pl.section_vector():
        tmp_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x18000,
            mutex_ids=[10, 11],
        )
    sub_id = pl.get_subblock_idx()
    n_blocks = a.shape[0] // BLOCK
    for i in pl.range(0, n_blocks):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_w_db)
        with pl.section_vector():
            copy(i, sub_id, x, out2, tmp_db)
        with pl.section_cube():
            drain(i, acc_r_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, out, proj_vec_db)
