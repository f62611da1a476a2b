"""Each vector core relu's its half of a tile into `out`, then copies the other vector core's half
of `out` into `out2` (a transpose of halves). Written for a mix launch (cube + two vector cores
per block); a helper defined in the kernel holds the cube section."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.jit(auto_mutex=False)
def swap_kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out2: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
):
    def cube_idle():
        with pl.section_cube():
            pass

    core_id = pl.get_block_idx() // pl.get_subblock_num()
    sub_id = pl.get_subblock_idx()
    num_cores = pl.get_block_num()
    n_tiles = a.shape[0] // TILE
    with pl.section_vector():
        x = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                         addr=0x0)
        z = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                         addr=0x4000)
    for t in pl.range(core_id, n_tiles, num_cores):
        with pl.section_vector():
            pl.load(x, a, [t * TILE + sub_id * HALF, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.relu(x, x)
            pl.system.bar_all()
            pl.store(out, x, [t * TILE + sub_id * HALF, 0])
            pl.system.bar_all()
        with pl.section_vector():
            pl.load(z, out, [t * TILE + (1 - sub_id) * HALF, 0])
            pl.system.bar_all()
            pl.store(out2, z, [t * TILE + sub_id * HALF, 0])
            pl.system.bar_all()
