"""Vector cores: out = relu(a), handing "done" to the cube; load -> compute -> store ordered by pipe barriers."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.jit(auto_mutex=True)
def bar_kernel(
    a: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[TILE, TILE], pl.DT_FP32],
):
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        x = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                         addr=0x0000)
        y = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                         addr=0x2000)
        pl.load(x, a, [sub_id * HALF, 0])
        pl.system.bar_mte2()
        pl.relu(y, x)
        pl.system.bar_v()
        pl.store(out, y, [sub_id * HALF, 0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=0)
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=0)
