"""The cube loads a row tile of `a` into L1; the vector cores move their half of it from L1
into UB (a Mat -> Vec `pl.move`, on the V pipe by PyPTO's table of moves), relu it and store it
(probe h140)."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.pipeline.stage
def load_stage(ki, a, a_mat_db):
    cur = a_mat_db.next()
    pl.load(cur, a, [ki * TILE, 0])


@pl.pipeline.stage
def vec_stage(ki, sub_id, out, a_mat_db, x_db, y_db):
    cur = a_mat_db.next()
    x = x_db.next()
    pl.move(x, cur)
    y = y_db.next()
    pl.relu(y, x)
    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
):
    a_mat_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.ND),
        addrs=0x0,
        mutex_ids=[0, 1],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        x_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x0,
            mutex_ids=[4, 5],
        )
        y_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x4000,
            mutex_ids=[6, 7],
        )
    n_tiles = a.shape[0] // TILE
    for ki in pl.range(0, n_tiles):
        with pl.section_cube():
            load_stage(ki, a, a_mat_db)
        with pl.section_vector():
            vec_stage(ki, sub_id, out, a_mat_db, x_db, y_db)
