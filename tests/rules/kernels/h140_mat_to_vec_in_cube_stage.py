"""The Mat -> Vec `pl.move` of h140_mat_to_vec_in_vector_stage.py in the cube stage, where
PTO066's help for that kernel sent the author (probe h140)."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.pipeline.stage
def load_stage(ki, a, a_mat_db, x_db):
    cur = a_mat_db.next()
    pl.load(cur, a, [ki * TILE, 0])
    x = x_db.next()
    pl.move(x, cur)


@pl.pipeline.stage
def vec_stage(ki, sub_id, out, x_db, y_db):
    x = x_db.next()
    y = y_db.next()
    pl.relu(y, x)
    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
):
    x_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0,
        mutex_ids=[4, 5],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_mat_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.ND),
            addrs=0x0,
            mutex_ids=[0, 1],
        )
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        y_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x4000,
            mutex_ids=[6, 7],
        )
    n_tiles = a.shape[0] // TILE
    for ki in pl.range(0, n_tiles):
        with pl.section_cube():
            load_stage(ki, a, a_mat_db, x_db)
        with pl.section_vector():
            vec_stage(ki, sub_id, out, x_db, y_db)
