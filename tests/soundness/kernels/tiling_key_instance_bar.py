"""out = relu(a) on the vector cores, the cube told when it is done; the MTE2 -> V order picked by a tiling key."""

import pypto_pro.language as pl
from pypto_pro.runtime.tilingkey import TilingKeyField

TILE = 32
HALF = TILE // 2


class SyncKey:
    LightSync = TilingKeyField(bits=1, values=[0, 1])


@pl.jit(auto_mutex=True, tiling_key=SyncKey)
def relu_kernel(
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
        if LightSync == 1:  # noqa: F821
            pl.system.bar_mte2()
        else:
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.relu(y, x)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, y, [sub_id * HALF, 0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=0)
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=0)
