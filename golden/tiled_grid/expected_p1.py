"""A serial CV kernel over a 2-D grid of output tiles, split over the cores by one strided index.

out[i, j] = (A_i @ W_j) * scale for every 32 x 32 tile (i, j) of `out`, where A_i is the i-th
32-row block of A and W_j the j-th 32-column block of W.

How the work is split is the way PyPTO's multi-core tutorial writes it: the tiles of the grid
are numbered row by row, `idx = i * n_tiles + j`, and block `core_id` takes the numbers
`core_id`, `core_id + num_cores`, ... of one strided loop, reading the tile's row and column
back as `i = idx // n_tiles` and `j = idx % n_tiles`. Every block does at most one tile more
than any other, and no block needs a branch of its own.

  * `a`, `w` and `out` have `pl.DYNAMIC` dimensions: the grid's rows and columns are known only
    at run time;
  * the scale is a scalar parameter.

Stages, in loop order:
  project  (cube)   A_i @ W_j          -> proj_vec_db  (cross-core, Vec)
  finish   (vector) scale, store this AIV's half of the tile

pto-transpile proves the pipelined kernel for every grid (every number of rows and columns of
tiles) and every core count: two tiles have different numbers, so different (row, column)
pairs, and their places in `out` differ along one of the two axes. On the emulator:

    pto-transpile examples/tiled_grid.py --simulate --shape a=96x32 --shape w=32x64 \
        --shape out=96x64 --arg scale=0.5 --block-dim 2
"""

import os

import pypto_pro.language as pl
import pytest
import torch
import torch_npu  # noqa: F401  (registers the NPU device with torch)

import pypto

ST_DEVICE_ID = int(os.environ.get("TILE_FWK_DEVICE_ID", 0))
ST_DEVICE = f"npu:{ST_DEVICE_ID}"

BLOCK = 32  # rows and columns of one output tile; A and W share a reduction dimension of BLOCK
HALF = BLOCK // 2  # dual mode splits along M: each AIV finishes one half of the tile


@pl.pipeline.stage
def project(i, j, a, w, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db):
    cur_a = a_l1_db.next()
    pl.load(cur_a, a, [i * BLOCK, 0])
    cur_w = w_l1_db.next()
    pl.load(cur_w, w, [0, j * BLOCK])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, cur_a)
    pl.move(right, cur_w)
    pl.matmul(acc, left, right)
    proj = proj_vec_db.next()
    pl.move(proj, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def finish(i, j, sub_id, scale, out, proj_vec_db, res_db):
    proj = proj_vec_db.next()
    res = res_db.next()
    pl.muls(res, proj, scale)
    pl.store(out, res, [i * BLOCK + sub_id * HALF, j * BLOCK])


# Written by pto-transpile (digest ba1940f6fede96cd): edit the serial kernel it came from, not this one.
@pl.jit(auto_mutex=True)
def tiled_grid_kernel(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    w: pl.Tensor[[BLOCK, pl.DYNAMIC], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    scale: pl.DT_FP32,
):
    proj_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000,
        mutex_ids=[8, 9],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x0000,
            mutex_ids=[0, 1],
        )
        w_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000,
            mutex_ids=[2, 12],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
            addrs=0x0000,
            mutex_ids=[3, 4],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
            addrs=0x0000,
            mutex_ids=[5],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0x0000,
            mutex_ids=[6, 7],
        )
    with pl.section_vector():
        res_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000,
            mutex_ids=[10, 11],
        )
    sub_id = pl.get_subblock_idx()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    m_tiles = a.shape[0] // BLOCK
    n_tiles = w.shape[1] // BLOCK
    total_tiles = m_tiles * n_tiles  # the tiles of the grid, numbered row by row
    _pl_ctx_arr = pl.struct_array(
        2,
        "PipeCtx",
        _pl_is_valid=0,
        i=0,
        j=0,
        scale=0.0,
        sub_id=0,
        _pl_task_id=0,
    )
    _pl_task_id = 0
    _pl_fwd_ids_proj_vec_db = [0, 1]
    _pl_bwd_ids_proj_vec_db = [2, 3]
    with pl.section_vector():
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_proj_vec_db[0])
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_proj_vec_db[1])
    for idx in pl.range(core_id, total_tiles, num_cores):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        if idx < total_tiles:
            _pl_ctx_0._pl_is_valid = 1
        else:
            _pl_ctx_0._pl_is_valid = 0
        i = idx // n_tiles  # the tile's row
        j = idx % n_tiles  # and its column
        _pl_ctx_0.i = i
        _pl_ctx_0.j = j
        _pl_ctx_0.scale = scale
        _pl_ctx_0.sub_id = sub_id
        _pl_ctx_0._pl_task_id = _pl_task_id
        with pl.section_cube():
            if _pl_ctx_0._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.FIX,
                    event_id=_pl_bwd_ids_proj_vec_db[_pl_ctx_0._pl_task_id % 2],
                )
                project(_pl_ctx_0.i, _pl_ctx_0.j, a, w, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.FIX,
                    event_id=_pl_fwd_ids_proj_vec_db[_pl_ctx_0._pl_task_id % 2],
                )
        _pl_ctx_neg1 = _pl_ctx_arr[(_pl_task_id + 1) % 2]
        with pl.section_vector():
            if _pl_ctx_neg1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_fwd_ids_proj_vec_db[_pl_ctx_neg1._pl_task_id % 2],
                )
                finish(_pl_ctx_neg1.i, _pl_ctx_neg1.j, _pl_ctx_neg1.sub_id, _pl_ctx_neg1.scale, out, proj_vec_db, res_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_bwd_ids_proj_vec_db[_pl_ctx_neg1._pl_task_id % 2],
                )
        _pl_task_id = _pl_task_id + 1
    for _pl_drain in pl.range(0, 1):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        _pl_ctx_0._pl_is_valid = 0
        _pl_ctx_0._pl_task_id = _pl_task_id
        _pl_ctx_neg1 = _pl_ctx_arr[(_pl_task_id + 1) % 2]
        with pl.section_vector():
            if _pl_ctx_neg1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_fwd_ids_proj_vec_db[_pl_ctx_neg1._pl_task_id % 2],
                )
                finish(_pl_ctx_neg1.i, _pl_ctx_neg1.j, _pl_ctx_neg1.sub_id, _pl_ctx_neg1.scale, out, proj_vec_db, res_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_bwd_ids_proj_vec_db[_pl_ctx_neg1._pl_task_id % 2],
                )
        _pl_task_id = _pl_task_id + 1
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_proj_vec_db[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_proj_vec_db[1])


@pytest.mark.soc(950)
@pypto.options(pass_options={"enable_slice": False})
def test_tiled_grid_kernel():
    device = ST_DEVICE
    torch.npu.set_device(device)
    torch.manual_seed(0)
    rows, cols = 40 * BLOCK, 6 * BLOCK
    a = torch.randn(rows, BLOCK, device=device, dtype=torch.float32)
    w = torch.randn(BLOCK, cols, device=device, dtype=torch.float32)
    out = torch.zeros(rows, cols, device=device, dtype=torch.float32)
    tiled_grid_kernel[None, 8](a, w, out, 0.5)
    torch.npu.synchronize()
    torch.testing.assert_close(out, (a @ w) * 0.5, rtol=1e-2, atol=1e-2)
