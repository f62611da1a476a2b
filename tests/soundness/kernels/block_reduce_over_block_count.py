"""out = relu(A_i @ A_i) per row tile over a per-core range; each block also sums its tiles into
its own workspace rows (ws[core_id]), and after a barrier block 0 adds the blocks' partials."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.pipeline.stage
def mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db):
    cur_a = a_l1.next()
    pl.load(cur_a, a, [ki * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, cur_a)
    pl.matmul(acc, left, right)
    c_vec = c_vec_db.next()
    pl.move(c_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def scale_store(ki, core_id, sub_id, out, ws, c_vec_db, y_db):
    c_vec = c_vec_db.next()
    y = y_db.next()
    pl.relu(y, c_vec)
    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])
    pl.store(ws, y, [core_id * TILE + sub_id * HALF, 0], atomic=pl.AtomicType.AtomicAdd)


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    ws: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    total: pl.Tensor[[TILE, TILE], pl.DT_FP32],
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
        part = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                            addr=0x8000)
        sumt = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                            addr=0xA000)
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    n_tiles = a.shape[0] // TILE
    for ki in pl.range(core_id, n_tiles, num_cores):
        with pl.section_cube():
            mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(ki, core_id, sub_id, out, ws, c_vec_db, y_db)
    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)
    with pl.section_vector():
        if core_id == 0:
            pl.full(sumt, 0.0)
        for b in pl.range(0, num_cores):
            if core_id == 0:
                pl.load(part, ws, [b * TILE + sub_id * HALF, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            if core_id == 0:
                pl.add(sumt, sumt, part)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE2, event_id=1)
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE2, event_id=1)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=2)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=2)
        if core_id == 0:
            pl.store(total, sumt, [sub_id * HALF, 0])
