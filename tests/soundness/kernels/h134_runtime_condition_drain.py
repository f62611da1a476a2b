"""Vector-only kernel double-buffered by hand with intra-core flags: out = relu(a), tile by tile."""
import pypto_pro.language as pl

TILE = 32
V, MTE2, MTE3 = pl.PipeType.V, pl.PipeType.MTE2, pl.PipeType.MTE3
X_FREE = [0, 1]   # V -> MTE2: slot of x may be loaded again
X_FULL = [2, 3]   # MTE2 -> V: x loaded
Y_FREE = [4, 5]   # MTE3 -> V: slot of y may be written again
Y_FULL = [6, 7]   # V -> MTE3: y computed


@pl.jit(auto_mutex=False)
def vdb_kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
):
    core_id = pl.get_block_idx()
    num_cores = pl.get_block_num()
    n_tiles = a.shape[0] // TILE
    x_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=[0x0000, 0x1000],
        mutex_ids=[0, 1],
    )
    y_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=[0x2000, 0x3000],
        mutex_ids=[2, 3],
    )
    j = 0
    for t in pl.range(core_id, n_tiles, num_cores):
        if t == core_id:
            for i in range(2):
                pl.system.sync_src(set_pipe=V, wait_pipe=MTE2, event_id=X_FREE[i])
                pl.system.sync_src(set_pipe=MTE3, wait_pipe=V, event_id=Y_FREE[i])
        s = j % 2
        x = x_db.next()
        y = y_db.next()
        pl.system.sync_dst(set_pipe=V, wait_pipe=MTE2, event_id=X_FREE[s])
        pl.load(x, a, [t * TILE, 0])
        pl.system.sync_src(set_pipe=MTE2, wait_pipe=V, event_id=X_FULL[s])
        pl.system.sync_dst(set_pipe=MTE2, wait_pipe=V, event_id=X_FULL[s])
        pl.system.sync_dst(set_pipe=MTE3, wait_pipe=V, event_id=Y_FREE[s])
        pl.relu(y, x)
        pl.system.sync_src(set_pipe=V, wait_pipe=MTE2, event_id=X_FREE[s])
        pl.system.sync_src(set_pipe=V, wait_pipe=MTE3, event_id=Y_FULL[s])
        pl.system.sync_dst(set_pipe=V, wait_pipe=MTE3, event_id=Y_FULL[s])
        pl.store(out, y, [t * TILE, 0])
        pl.system.sync_src(set_pipe=MTE3, wait_pipe=V, event_id=Y_FREE[s])
        j = j + 1
    if j > 0:
        for i in range(2):
            pl.system.sync_dst(set_pipe=V, wait_pipe=MTE2, event_id=X_FREE[i])
            pl.system.sync_dst(set_pipe=MTE3, wait_pipe=V, event_id=Y_FREE[i])
