"""A production-style serial CV kernel: run-time shapes, a per-core loop, a tiling key and tiling data.

out[i] = epilogue(A_i @ W) for every 32-row block i of A, where the epilogue scales by
`tiling.scale` and, in the tiling-key instance `ApplyRelu == 1`, applies relu.

What makes it look like the kernels PyPTO users ship:
  * `a` and `out` have `pl.DYNAMIC` rows: the number of row blocks is known only at run time;
  * the blocks are spread over the cores: block `core_id` takes rows `core_id`,
    `core_id + num_cores`, ... (`pl.range(core_id, n_blocks, num_cores)`);
  * `EpilogueKey.ApplyRelu` is a tiling-key field: the JIT compiles one instance per value and
    binds `ApplyRelu` as a compile-time name in every function of the file;
  * the scale arrives as tiling data, a module-level dataclass passed to the kernel.

Stages, in loop order:
  project  (cube)   A_i @ W            -> proj_vec_db  (cross-core, Vec)
  finish   (vector) epilogue, store this AIV's half of the block

pto-transpile proves the pipelined kernel for every number of row blocks, every core count
and both tiling-key instances. On the emulator:

    pto-transpile examples/tiled_scale.py --simulate --shape a=160x32 --shape out=160x32 \
        --arg scale=0.5 --arg ApplyRelu=1 --block-dim 2
"""

import os
from dataclasses import dataclass

import pypto_pro.language as pl
import pytest
import torch
import torch_npu  # noqa: F401  (registers the NPU device with torch)
from pypto_pro.runtime.tilingkey import TilingKeyField

import pypto

ST_DEVICE_ID = int(os.environ.get("TILE_FWK_DEVICE_ID", 0))
ST_DEVICE = f"npu:{ST_DEVICE_ID}"

BLOCK = 32  # rows of A per pipeline iteration
HALF = BLOCK // 2  # dual mode splits along M: each AIV finishes one half


@dataclass
class ScaleTiling:
    """Tiling data computed on the host."""

    scale: float


class EpilogueKey:
    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])


def epilogue(dst, src, scale):
    """Scale, then relu in the instance that asks for it."""
    pl.muls(dst, src, scale)
    if ApplyRelu == 1:  # noqa: F821  (a tiling-key field, bound by the JIT)
        pl.relu(dst, dst)


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
def finish(i, sub_id, scale, out, proj_vec_db, res_db):
    proj = proj_vec_db.next()
    res = res_db.next()
    epilogue(res, proj, scale)
    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])


# Written by pto-transpile (digest c87b319a6661a870): edit the serial kernel it came from, not this one.
@pl.jit(auto_mutex=True, tiling_key=EpilogueKey)
def tiled_scale_kernel(
    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],
    tiling: ScaleTiling,
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
        w_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[BLOCK, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
            addrs=0x8000,
            mutex_ids=[2],
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
        # W stays in L1 for the whole kernel
        w_slot = w_l1.current()
        pl.load(w_slot, w, [0, 0])
    with pl.section_vector():
        res_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000,
            mutex_ids=[10, 11],
        )
    sub_id = pl.get_subblock_idx()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    num_cores = pl.get_block_num()
    n_blocks = a.shape[0] // BLOCK
    _pl_ctx_arr = pl.struct_array(2, "PipeCtx", _pl_is_valid=0, i=0, sub_id=0, _pl_task_id=0)
    _pl_task_id = 0
    _pl_fwd_ids_proj_vec_db = [0, 1]
    _pl_bwd_ids_proj_vec_db = [2, 3]
    with pl.section_vector():
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_proj_vec_db[0])
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_proj_vec_db[1])
    for i in pl.range(core_id, n_blocks, num_cores):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        if i < n_blocks:
            _pl_ctx_0._pl_is_valid = 1
        else:
            _pl_ctx_0._pl_is_valid = 0
        _pl_ctx_0.i = i
        _pl_ctx_0.sub_id = sub_id
        _pl_ctx_0._pl_task_id = _pl_task_id
        with pl.section_cube():
            if _pl_ctx_0._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.FIX,
                    event_id=_pl_bwd_ids_proj_vec_db[_pl_ctx_0._pl_task_id % 2],
                )
                project(_pl_ctx_0.i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
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
                finish(_pl_ctx_neg1.i, _pl_ctx_neg1.sub_id, tiling.scale, out, proj_vec_db, res_db)
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
                finish(_pl_ctx_neg1.i, _pl_ctx_neg1.sub_id, tiling.scale, out, proj_vec_db, res_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_bwd_ids_proj_vec_db[_pl_ctx_neg1._pl_task_id % 2],
                )
        _pl_task_id = _pl_task_id + 1
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_proj_vec_db[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_proj_vec_db[1])


@pytest.mark.soc(950)
@pytest.mark.parametrize("apply_relu", [0, 1])
@pypto.options(pass_options={"enable_slice": False})
def test_tiled_scale_kernel(apply_relu):
    device = ST_DEVICE
    torch.npu.set_device(device)
    torch.manual_seed(0)
    rows = 40 * BLOCK
    a = torch.randn(rows, BLOCK, device=device, dtype=torch.float32)
    w = torch.randn(BLOCK, BLOCK, device=device, dtype=torch.float32)
    out = torch.zeros(rows, BLOCK, device=device, dtype=torch.float32)
    tiling = ScaleTiling(scale=0.5)  # tiling data goes last
    tiled_scale_kernel[None, 8, {"ApplyRelu": apply_relu}](a, w, out, tiling)
    torch.npu.synchronize()
    ref = (a @ w) * tiling.scale
    if apply_relu:
        ref = torch.relu(ref)
    torch.testing.assert_close(out, ref, rtol=1e-2, atol=1e-2)
