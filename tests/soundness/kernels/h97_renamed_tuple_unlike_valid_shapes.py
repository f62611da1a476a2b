"""A tuple of 16 tiles picked by a counter's residue (`buf[c % 16]`): the first task gives entry 13
sixteen valid rows through `buf[(c + 13) % 16]`. Stored from in task 13, it reaches the rows of `ws`
the cube stage of task 14 loads (probe h97: accepted as a renamed sequence; races from 15 tiles)."""
import pypto_pro.language as pl

BLOCK = 32
HALF = BLOCK // 2


@pl.pipeline.stage
def project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db):
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [i * BLOCK, 0])
    cur_w = w_l1_db.next()
    pl.load(cur_w, ws, [32, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, cur_w)
    pl.matmul(acc, left, right)
    proj = proj_vec_db.next()
    pl.move(proj, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha, buf, c):
    proj = proj_vec_db.next()
    res = res_db.next()
    pl.muls(res, proj, 0.5)
    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])
    pl.store(ws2, res, [sub_id * HALF, 0])
    if i == 0:
        pl.set_validshape(buf[(c + 13) % 16], [16, BLOCK])
    r2 = buf[c % 16]
    pl.system.bar_all()
    pl.muls(r2, proj, 0.25)
    pl.system.bar_all()
    pl.store(ws, r2, [24 + sub_id * 40, 0])
    pl.system.bar_all()


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kern(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    ws: pl.Tensor[[3 * BLOCK, BLOCK], pl.DT_FP32],
    ws2: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],
    d: pl.DT_INT32,
    alpha: pl.DT_FP32,
):
    proj_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[8, 9], fwd_ids=[0, 1], bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000, mutex_ids=[0, 1],
        )
        w_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000, mutex_ids=[2, 12],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x0000, mutex_ids=[3, 4],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x0000, mutex_ids=[5, 13],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000, mutex_ids=[6, 7],
        )
    with pl.section_vector():
        res_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000, mutex_ids=[10, 11],
        )
    with pl.section_vector():
        tt = pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                         valid_shape=[8, BLOCK])
        b0 = pl.make_tile(tt, addr=0x10000 + 0 * 0x800)
        b1 = pl.make_tile(tt, addr=0x10000 + 1 * 0x800)
        b2 = pl.make_tile(tt, addr=0x10000 + 2 * 0x800)
        b3 = pl.make_tile(tt, addr=0x10000 + 3 * 0x800)
        b4 = pl.make_tile(tt, addr=0x10000 + 4 * 0x800)
        b5 = pl.make_tile(tt, addr=0x10000 + 5 * 0x800)
        b6 = pl.make_tile(tt, addr=0x10000 + 6 * 0x800)
        b7 = pl.make_tile(tt, addr=0x10000 + 7 * 0x800)
        b8 = pl.make_tile(tt, addr=0x10000 + 8 * 0x800)
        b9 = pl.make_tile(tt, addr=0x10000 + 9 * 0x800)
        b10 = pl.make_tile(tt, addr=0x10000 + 10 * 0x800)
        b11 = pl.make_tile(tt, addr=0x10000 + 11 * 0x800)
        b12 = pl.make_tile(tt, addr=0x10000 + 12 * 0x800)
        b13 = pl.make_tile(tt, addr=0x10000 + 13 * 0x800)
        b14 = pl.make_tile(tt, addr=0x10000 + 14 * 0x800)
        b15 = pl.make_tile(tt, addr=0x10000 + 15 * 0x800)
        buf = (b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15)
    sub_id = pl.get_subblock_idx()
    n_blocks = a.shape[0] // BLOCK
    c = 0
    for i in pl.range(0, n_blocks):
        with pl.section_cube():
            project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha, buf, c)
        c = c + 1

