"""`tile_params(st, t, ki)`: a helper that checks its index first (`if ki < 0: raise ...`), then
shifts a ten-deep history of `ki` in `st` and sets `t.vt = ki + min(st.d10, 1)`. From iteration 10
the vector stage stores tile ki + 1, which the next iteration's cube stores too. `out` has one tile
more than `a`."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


def tile_params(p, q, ki):
    if ki < 0:
        raise ValueError("tile index must not be negative")
    p.d10 = p.d9
    p.d9 = p.d8
    p.d8 = p.d7
    p.d7 = p.d6
    p.d6 = p.d5
    p.d5 = p.d4
    p.d4 = p.d3
    p.d3 = p.d2
    p.d2 = p.d1
    p.d1 = ki
    q.vt = ki + pl.min(p.d10, 1)


@pl.pipeline.stage
def mm_stage(ki, d, a, out, a_l1, left_db, right_db, acc_db, c_vec_db):
    cur_a = a_l1.next()
    pl.load(cur_a, a, [ki * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, cur_a)
    pl.matmul(acc, left, right)
    pl.store(out, acc, [ki * TILE, 0])
    c_vec = c_vec_db.next()
    pl.move(c_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def scale_store(ki, d, sub_id, out, c_vec_db, y_db):
    c_vec = c_vec_db.next()
    y = y_db.next()
    pl.relu(y, c_vec)
    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    d: pl.DT_INT32,
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
    n_tiles = a.shape[0] // TILE
    st = pl.struct("History", d1=0, d2=0, d3=0, d4=0, d5=0, d6=0, d7=0, d8=0, d9=0, d10=0)
    for ki in pl.range(0, n_tiles):
        t = pl.struct("Tile", vt=0)
        tile_params(st, t, ki)
        with pl.section_cube():
            mm_stage(ki, d, a, out, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(t.vt, d, sub_id, out, c_vec_db, y_db)
