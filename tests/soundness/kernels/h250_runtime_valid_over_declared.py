"""A marker row stored after each block's half, from a one-row tile whose valid rows are a
run-time parameter; a cube stage reads back the rows below the marker."""

import pypto_pro.language as pl

M = 16     # rows of A per block
N = 64     # columns of the result
HALF = N // 2
RC = 16    # columns read back
OUT_STRIDE = 3 * M  # rows of out per block: the block, the marker, the rows read back


@pl.pipeline.stage
def project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db):
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [i * M, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, w_slot)
    pl.matmul(acc, left, right)
    proj = proj_vec_db.next()
    pl.move(proj, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitN)


@pl.pipeline.stage
def finish(i, sub_id, out, proj_vec_db, mark):
    proj = proj_vec_db.next()
    pl.store(out, proj, [i * OUT_STRIDE, sub_id * HALF])
    pl.store(out, mark, [i * OUT_STRIDE + M, sub_id * HALF])


@pl.pipeline.stage
def readback(i, out, back_l1):
    back = back_l1.current()
    pl.load(back, out, [i * OUT_STRIDE + M + 1, RC])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, N], pl.DT_FP32],
    w: pl.Tensor[[N, N], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, N], pl.DT_FP32],
    k: pl.DT_INT32,
):
    proj_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[M, HALF], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000,
        mutex_ids=[8, 9],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[M, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000,
            mutex_ids=[0, 1],
        )
        w_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[N, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000,
            mutex_ids=[2],
        )
        back_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[M, RC], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x18000,
            mutex_ids=[12],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[M, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x0000,
            mutex_ids=[3, 4],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[N, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x0000,
            mutex_ids=[5],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[M, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000,
            mutex_ids=[6, 7],
        )
        w_slot = w_l1.current()
        pl.load(w_slot, w, [0, 0])
    with pl.section_vector():
        fill = pl.make_tile(pl.TileType(shape=[1, HALF], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                            addr=0x10000)
        mark = pl.make_tile(pl.TileType(shape=[1, HALF], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                                        valid_shape=[k, HALF]),
                            addr=0x10000)
        pl.expands(fill, 7.0)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
    sub_id = pl.get_subblock_idx()
    n_blocks = a.shape[0] // M
    for i in pl.range(0, n_blocks):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, out, proj_vec_db, mark)
        with pl.section_cube():
            readback(i, out, back_l1)
