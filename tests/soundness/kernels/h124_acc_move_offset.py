"""Probe h124's hole: the cube moves each block's product from Acc to a [2*BLOCK, N] NZ UB slot with
`pl.move(..., [BLOCK, 0], acc_to_vec_mode=...)`, an offset an Acc->Vec move does not take (it writes
from the slot's origin); the vector side keeps a marker tile in the upper half of the second slot. The
check took the move for an insert into the lower half, so the rows it writes over the marker were unseen."""

import pypto_pro.language as pl

BLOCK = 16
N = 32


@pl.pipeline.stage
def project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db):
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [i * BLOCK, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, w_slot)
    pl.matmul(acc, left, right)
    proj = proj_vec_db.next()
    pl.move(proj, acc, [BLOCK, 0], acc_to_vec_mode=pl.AccToVecMode.SingleModeVec0)


@pl.pipeline.stage
def finish(i, sub_id, out, flags, proj_vec_db, res_db, marker):
    proj = proj_vec_db.next()
    res = res_db.next()
    pl.muls(res, proj, 0.5)
    pl.store(out, res, [i * 2 * BLOCK * 2 + sub_id * 2 * BLOCK, 0])
    pl.store(flags, marker, [(2 * i + sub_id) * 8, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kern(
    a: pl.Tensor[[pl.DYNAMIC, N], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, N], pl.DT_FP32],
    w: pl.Tensor[[N, N], pl.DT_FP32],
    flags: pl.Tensor[[pl.DYNAMIC, 8], pl.DT_FP32],
):
    proj_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[2 * BLOCK, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec, layout=pl.NZ),
        addrs=0x0000, mutex_ids=[8, 9], fwd_ids=[0, 1], bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000, mutex_ids=[0, 1],
        )
        w_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[N, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000, mutex_ids=[2],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x0000, mutex_ids=[3, 4],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[N, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x0000, mutex_ids=[5],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000, mutex_ids=[6, 7],
        )
        w_slot = w_l1.current()
        pl.load(w_slot, w, [0, 0])
    with pl.section_vector():
        res_db = pl.make_tile_group(
            type=pl.TileType(shape=[2 * BLOCK, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec, layout=pl.NZ),
            addrs=0x8000, mutex_ids=[10, 11],
        )
        # rows 0..8 of column block 0 of the second slot: bytes [0x1000, 0x1100)
        marker = pl.make_tile(
            pl.TileType(shape=[8, 8], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addr=0x1000,
        )
        pl.full(marker, 1.0)
    sub_id = pl.get_subblock_idx()
    n_blocks = a.shape[0] // BLOCK
    for i in pl.range(0, n_blocks):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, out, flags, proj_vec_db, res_db, marker)
