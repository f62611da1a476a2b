"""A vector-only kernel with hand-written double buffering, its tiles spread over the blocks by
`pl.range(pl.get_block_idx(), n_tiles, pl.get_block_num())`: one vector core per block (probe h98:
warned that its two vector cores run the loop a different number of times). Valid."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE
EV_LOADED = [0, 1]  # MTE2 -> V: slot k holds the tile
EV_DONE = [2, 3]  # V -> MTE3: slot k's result is ready
EV_FREE = [4, 5]  # MTE3 -> MTE2: slot k may be loaded again


@pl.jit(auto_mutex=False)
def relu_rows_kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
):
    core_id = pl.get_block_idx()  # one vector core per block in a vector-only kernel
    sub_id = 0
    num_cores = pl.get_block_num()
    n_tiles = a.shape[0] // TILE
    x_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0, depth=2)
    y_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x4000, depth=2)
    with pl.section_vector():
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=EV_FREE[0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=EV_FREE[1])
        j = 0
        for t in pl.range(core_id, n_tiles, num_cores):
            row = t * TILE + sub_id * HALF
            x = x_db.next()
            y = y_db.next()
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=EV_FREE[j % 2])
            pl.load(x, a, [row, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=EV_LOADED[j % 2])
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=EV_LOADED[j % 2])
            pl.relu(y, x)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=EV_DONE[j % 2])
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=EV_DONE[j % 2])
            pl.store(out, y, [row, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=EV_FREE[j % 2])
            j = j + 1
        # drain: the last release of each slot
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=EV_FREE[0])
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=EV_FREE[1])
