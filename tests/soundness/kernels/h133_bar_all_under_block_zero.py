"""Split-K GEMM: out = relu(sum_k A[:, k] @ B[k, :]) for one 32x32 output tile.

Each block takes every num_cores-th K tile (per-core range), the cube multiplies, the vector
cores add their half of the product into the workspace `acc_ws` atomically. After a barrier of
every core, block 0 applies relu and writes `out`."""
import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2


@pl.pipeline.stage
def mm(k, a, b, a_l1_db, b_l1_db, left_db, right_db, acc_db, c_vec_db):
    at = a_l1_db.next()
    bt = b_l1_db.next()
    pl.load(at, a, [0, k * TILE])
    pl.load(bt, b, [k * TILE, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, at)
    pl.move(right, bt)
    pl.matmul(acc, left, right)
    c = c_vec_db.next()
    pl.move(c, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def accumulate(k, sub_id, acc_ws, c_vec_db):
    c = c_vec_db.next()
    pl.store(acc_ws, c, [sub_id * HALF, 0], atomic=pl.AtomicType.AtomicAdd)


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def splitk_kernel(
    a: pl.Tensor[[TILE, pl.DYNAMIC], pl.DT_FP32],
    b: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],
    acc_ws: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[TILE, TILE], pl.DT_FP32],
):
    c_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[8, 9], fwd_ids=[0, 1], bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000, mutex_ids=[0, 1],
        )
        b_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000, mutex_ids=[2, 12],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x0000, mutex_ids=[3, 4],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x0000, mutex_ids=[5, 13],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000, mutex_ids=[6, 7],
        )
    with pl.section_vector():
        fin = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                           addr=0x10000)
    sub_id = pl.get_subblock_idx()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    k_tiles = b.shape[0] // TILE
    for k in pl.range(core_id, k_tiles, num_cores):
        with pl.section_cube():
            mm(k, a, b, a_l1_db, b_l1_db, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            accumulate(k, sub_id, acc_ws, c_vec_db)
    pl.system.sync_all()
    with pl.section_vector():
        if core_id == 0:
            pl.load(fin, acc_ws, [sub_id * HALF, 0])
            pl.system.bar_all()
            pl.relu(fin, fin)
            pl.system.bar_all()
            pl.store(out, fin, [sub_id * HALF, 0])
