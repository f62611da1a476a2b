"""A sliding window: for each output row tile `r`, a pipeline loop over the `win` input tiles from
`r`, written `for i in pl.range(r, r + win):` (probe h97: refused as bounds that are not integers,
with no form to use). Valid."""
import pypto_pro.language as pl

BLOCK = 32
HALF = BLOCK // 2


@pl.pipeline.stage
def project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db):
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [i * BLOCK, 0])
    cur_w = w_l1_db.next()
    pl.load(cur_w, ws, [0, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, cur_w)
    pl.matmul(acc, left, right)
    proj = proj_vec_db.next()
    pl.move(proj, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def finish(i, r, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha):
    proj = proj_vec_db.next()
    res = res_db.next()
    pl.muls(res, proj, 0.5)
    pl.store(out, res, [r * BLOCK + sub_id * HALF, (i - r) * BLOCK])
    pl.store(ws2, res, [sub_id * HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def kern(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    c: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    wt: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    ws: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],
    ws2: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],
    d: pl.DT_INT32,
    alpha: pl.DT_FP32,
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
        w_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000, mutex_ids=[2, 12],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x0000, mutex_ids=[3, 4],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x0000, mutex_ids=[5, 13],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000, mutex_ids=[6, 7],
        )
    with pl.section_vector():
        res_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000, mutex_ids=[10, 11],
        )
    sub_id = pl.get_subblock_idx()
    m = c.shape[0] // BLOCK
    win = wt.shape[0] // BLOCK
    for r in pl.range(0, m):
        for i in pl.range(r, r + win):
            with pl.section_cube():
                project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)
            with pl.section_vector():
                finish(i, r, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha)

