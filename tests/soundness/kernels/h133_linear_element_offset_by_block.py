"""Per-core rows; each block also keeps its tiles in its own column band of a 3-D workspace."""
import pypto_pro.language as pl

BLOCK = 32
HALF = BLOCK // 2
BAND = 16


@pl.pipeline.stage
def project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db):
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [i * BLOCK, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, w_slot)
    pl.matmul(acc, left, right)
    proj = proj_vec_db.next()
    pl.move(proj, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def finish(i, core_id, sub_id, out, ws, proj_vec_db, res_db):
    proj = proj_vec_db.next()
    res = res_db.next()
    pl.muls(res, proj, 0.5)
    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])
    pl.setval(ws, core_id * 4 + sub_id, 1.0)


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kern(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],
    ws: pl.Tensor[[16, 4], pl.DT_FP32],
):
    proj_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[8, 9], fwd_ids=[0, 1], bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000, mutex_ids=[0, 1],
        )
        w_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000, mutex_ids=[2],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x0000, mutex_ids=[3, 4],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x0000, mutex_ids=[5],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000, mutex_ids=[6, 7],
        )
        w_slot = w_l1.current()
        pl.load(w_slot, w, [0, 0])
    with pl.section_vector():
        res_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000, mutex_ids=[10, 11],
        )
    sub_id = pl.get_subblock_idx()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    n_blocks = a.shape[0] // BLOCK
    for i in pl.range(core_id, n_blocks, num_cores):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, core_id, sub_id, out, ws, proj_vec_db, res_db)
