"""Layers of a pipelined inner loop, `pl.system.sync_all()` after each ("layer done on every
block"), blocks exchanging rows of a GM workspace `ws` picked by `core_id % 8`. Pipelined, the
inner loop's last tasks run after the barrier and race with another block's load."""

import pypto_pro.language as pl

TILE = 64
TILE_HALF = TILE // 2  # dual mode splits along M: each AIV handles one half
N_ITER = 4
S = N_ITER + 1  # ws slots of one block


@pl.pipeline.stage
def stage1(ki, rd, ws, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db):
    """Cube: mm1 = A_i @ B."""
    cur_a = a_l1_db.next()
    pl.load(cur_a, ws, [rd * TILE, 0])
    b_slot = b_l1.current()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, b_slot)
    pl.matmul(acc, left, right)
    mm1_vec = mm1_vec_db.next()
    # DualModeSplitM: the [TILE, TILE] acc is split along M, each AIV gets [TILE_HALF, TILE]
    pl.move(mm1_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db):
    """Vector: relu on this AIV's half, convert to NZ, insert it into the L1 buffer by row offset."""
    mm1_vec = mm1_vec_db.next()
    relu_vec = relu_vec_db.next()
    pl.relu(relu_vec, mm1_vec)
    relu_nz = relu_nz_db.next()
    pl.move(relu_nz, relu_vec)  # ND -> NZ (insert needs an NZ source tile)
    p_mat = p_mat_db.next()
    pl.insert(p_mat, relu_nz, [sub_id * TILE_HALF, 0])


@pl.pipeline.stage
def stage3(ki, wr, ws, d_l1, p_mat_db, left_db, right_db, acc_db, out_vec_db):
    """Cube: mm2 = relu(mm1) @ D."""
    d_slot = d_l1.current()
    p_mat = p_mat_db.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, p_mat)
    pl.move(right, d_slot)
    pl.matmul(acc, left, right)
    pl.store(ws, acc, [wr * TILE, 0])
    out_vec = out_vec_db.next()
    pl.move(out_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def stage4(ki, sub_id, out, out_vec_db):
    """Vector: each AIV writes its half of this iteration's result back to GM."""
    out_vec = out_vec_db.next()
    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=2))
def pipeline_demo_kernel(
    b: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    d: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[16 * N_ITER * TILE, TILE], pl.DT_FP32],
    ws: pl.Tensor[[48 * S * TILE, TILE], pl.DT_FP32],
):
    # Cross-core shared buffers: fwd_ids/bwd_ids tell the transform where to insert sync
    mm1_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000,
        mutex_ids=[12, 13],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    p_mat_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=0x8000,
        mutex_ids=[14, 15],
        fwd_ids=[4, 5],
        bwd_ids=[6, 7],
    )
    out_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x10000,
        mutex_ids=[16, 17],
        fwd_ids=[8, 9],
        bwd_ids=[10, 11],
    )

    # Cube-local buffers
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[0, 1],
        )
        b_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x10000,
            mutex_ids=[2],
        )
        d_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x14000,
            mutex_ids=[3],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[4, 5],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0000,
            mutex_ids=[6, 7],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(
                shape=[TILE, TILE],
                dtype=pl.DT_FP32,
                target_memory=pl.MemorySpace.Acc,
                layout=pl.NZ,
                fractal=1024,
            ),
            addrs=0x0000,
            mutex_ids=[8, 9, 10, 11],
        )
        # B and D are loaded once, before the loop, and reused by every iteration
        b_slot = b_l1.current()
        d_slot = d_l1.current()
        pl.load(b_slot, b, [0, 0])
        pl.load(d_slot, d, [0, 0])

    # Vector-local buffers
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        relu_vec_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000,
            mutex_ids=[18, 19],
        )
        relu_nz_db = pl.make_tile_group(
            type=pl.TileType(
                shape=[TILE_HALF, TILE],
                dtype=pl.DT_FP32,
                target_memory=pl.MemorySpace.Vec,
                layout=pl.NZ,
            ),
            addrs=0x18000,
            mutex_ids=[20, 21],
        )

    core_id = pl.get_block_idx() // pl.get_subblock_num()
    slot = core_id % 8  # ws: per layer q, 16 rows of S slots; block c feeds row c % 8 + 1 of layer q + 1
    for q in pl.range(0, 2):
      for ki in pl.range(0, N_ITER):
        rd = (q * 16 + slot) * S + ki
        wr = ((q + 1) * 16 + slot + 1) * S + ki
        o = (core_id * 2 + q) * N_ITER + ki
        with pl.section_cube():
            stage1(ki, rd, ws, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db)
        with pl.section_vector():
            stage2(ki, sub_id, mm1_vec_db, relu_vec_db, relu_nz_db, p_mat_db)
        with pl.section_cube():
            stage3(ki, wr, ws, d_l1, p_mat_db, left_db, right_db, acc_db, out_vec_db)
        with pl.section_vector():
            stage4(o, sub_id, out, out_vec_db)
      # layer q is complete on every block before any block reads it in layer q + 1
      pl.system.sync_all(core_type=pl.SyncCoreType.MIX)


