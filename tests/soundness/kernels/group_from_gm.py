"""Grouped matmul (MoE style) for one group whose first row block and block count the router
wrote to GM: out rows [starts[0], starts[0] + counts[0]) blocks = x rows @ w[0] * alpha."""
import pypto_pro.language as pl

T = 32
HALF = T // 2
D = 64
G = 4


@pl.pipeline.stage
def gmm_stage(blk, g, x, w, x_l1_db, w_l1_db, left_db, right_db, acc_db, y_vec_db):
    xl = x_l1_db.next()
    wl = w_l1_db.next()
    pl.load(xl, x, [blk * T, 0])
    pl.load(wl, w, [g * D, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, xl)
    pl.move(right, wl)
    pl.matmul(acc, left, right)
    yv = y_vec_db.next()
    pl.move(yv, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def scale_store(blk, sub_id, alpha, out, y_vec_db):
    yv = y_vec_db.next()
    pl.muls(yv, yv, alpha)
    pl.store(out, yv, [blk * T + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def grouped_mm_kernel(
    x: pl.Tensor[[pl.DYNAMIC, D], pl.DT_FP16],
    w: pl.Tensor[[G * D, D], pl.DT_FP16],
    starts: pl.Tensor[[G], pl.DT_INT32],
    counts: pl.Tensor[[G], pl.DT_INT32],
    out: pl.Tensor[[pl.DYNAMIC, D], pl.DT_FP32],
    alpha: pl.DT_FP32,
):
    y_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, D], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000,
        mutex_ids=[0, 1],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    with pl.section_cube():
        x_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[T, D], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000,
            mutex_ids=[2, 3],
        )
        w_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[D, D], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat),
            addrs=0x2000,
            mutex_ids=[4, 5],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[T, D], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Left),
            addrs=0x0000,
            mutex_ids=[6, 7],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[D, D], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Right),
            addrs=0x0000,
            mutex_ids=[8, 9],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[T, D], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000,
            mutex_ids=[10, 11],
        )
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
    g = 0
    start = starts[0]
    cnt = counts[0]
    for i in pl.range(0, cnt):
        with pl.section_cube():
            gmm_stage(start + i, g, x, w, x_l1_db, w_l1_db, left_db, right_db, acc_db, y_vec_db)
        with pl.section_vector():
            scale_store(start + i, sub_id, alpha, out, y_vec_db)
