"""Six stages C->V->C->V->C->V over n row tiles, z_i = (0.5 * relu(A_i @ B) @ D) @ D with V->C
handovers, the last stage's scratch `w_db` laid on the tiles of the cross-core group `x_db`
(same addresses and mutex ids) that the first two stages hand over (probe h139)."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2
NS = 3


VT = pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)


VNZ = pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec, layout=pl.NZ)


MT = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ)


@pl.pipeline.stage
def s1(ki, a, b_l1, a_l1, left_db, right_db, acc_db, x_db):
    cur = a_l1.next()
    pl.load(cur, a, [ki * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur)
    bs = b_l1.current()
    pl.move(right, bs)
    pl.matmul(acc, left, right)
    x = x_db.next()
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def s2(ki, sub_id, x_db, r_db, rnz_db, p_db):
    x = x_db.next()
    r = r_db.next()
    pl.relu(r, x)
    rnz = rnz_db.next()
    pl.move(rnz, r)
    p = p_db.next()
    pl.insert(p, rnz, [sub_id * HALF, 0])


@pl.pipeline.stage
def s3(ki, d_l1, p_db, left_db, right_db, acc_db, y_db):
    p = p_db.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, p)
    ds = d_l1.current()
    pl.move(right, ds)
    pl.matmul(acc, left, right)
    y = y_db.next()
    pl.move(y, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def s4(ki, sub_id, y_db, r_db, rnz_db, q_db):
    y = y_db.next()
    r = r_db.next()
    pl.muls(r, y, 0.5)
    rnz = rnz_db.next()
    pl.move(rnz, r)
    q = q_db.next()
    pl.insert(q, rnz, [sub_id * HALF, 0])


@pl.pipeline.stage
def s5(ki, d2_l1, q_db, left_db, right_db, acc_db, z_db):
    q = q_db.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, q)
    ds = d2_l1.current()
    pl.move(right, ds)
    pl.matmul(acc, left, right)
    z = z_db.next()
    pl.move(z, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def s6(ki, sub_id, out, z_db, w_db):
    z = z_db.next()
    w = w_db.next()
    pl.muls(w, z, 2.0)
    pl.store(out, w, [ki * TILE + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=3))
def reuse_w(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    d: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    n: pl.DT_INT32,
):
    x_db = pl.make_tile_group(type=VT, addrs=0x0, mutex_ids=[20, 21, 22], fwd_ids=[0], bwd_ids=[1])
    p_db = pl.make_tile_group(type=MT, addrs=0x10000, mutex_ids=[23, 24, 25], fwd_ids=[9, 10, 11], bwd_ids=[9, 10, 11])
    y_db = pl.make_tile_group(type=VT, addrs=0x4000, mutex_ids=[26, 27, 28], fwd_ids=[3], bwd_ids=[4])
    q_db = pl.make_tile_group(type=MT, addrs=0x18000, mutex_ids=[29, 30, 31], fwd_ids=[12, 13, 14],
                              bwd_ids=[12, 13, 14])
    z_db = pl.make_tile_group(type=VT, addrs=0x8000, mutex_ids=[12, 13, 14], fwd_ids=[6, 7, 8], bwd_ids=[6, 7, 8])
    with pl.section_cube():
        a_l1 = pl.make_tile_group(type=MT, addrs=0x0, mutex_ids=[0, 1, 2])
        b_l1 = pl.make_tile_group(type=MT, addrs=0x8000, mutex_ids=[3])
        d_l1 = pl.make_tile_group(type=MT, addrs=0xC000, mutex_ids=[4])
        d2_l1 = pl.make_tile_group(type=MT, addrs=0xD000, mutex_ids=[11])
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0, mutex_ids=[5, 6])
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0, mutex_ids=[7, 8])
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ,
                             fractal=1024),
            addrs=0x0, mutex_ids=[9, 10])
        bs = b_l1.current()
        pl.load(bs, b, [0, 0])
        ds = d_l1.current()
        pl.load(ds, d, [0, 0])
        ds2 = d2_l1.current()
        pl.load(ds2, d, [0, 0])
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        r_db = pl.make_tile_group(type=VT, addrs=0xC000, mutex_ids=[15, 16])
        rnz_db = pl.make_tile_group(type=VNZ, addrs=0xE000, mutex_ids=[17, 18])
        w_db = pl.make_tile_group(type=VT, addrs=0x0, mutex_ids=[20, 21, 22])
    for ki in pl.range(0, n):
        with pl.section_cube():
            s1(ki, a, b_l1, a_l1, left_db, right_db, acc_db, x_db)
        with pl.section_vector():
            s2(ki, sub_id, x_db, r_db, rnz_db, p_db)
        with pl.section_cube():
            s3(ki, d_l1, p_db, left_db, right_db, acc_db, y_db)
        with pl.section_vector():
            s4(ki, sub_id, y_db, r_db, rnz_db, q_db)
        with pl.section_cube():
            s5(ki, d2_l1, q_db, left_db, right_db, acc_db, z_db)
        with pl.section_vector():
            s6(ki, sub_id, out, z_db, w_db)
