"""Two pipeline loops in one kernel, each a vector-first chain, with their own preload.

Loop 1 (preload 0: kept serial, sync inserted):
    scale_in (vector)  p = 0.5 * x[i], each AIV its half of the rows, inserted into L1
    project  (cube)    mid[i] = p @ w
Loop 2 (preload 2), after a barrier so that loop 1's `mid` is complete:
    gate_in  (vector)  q = relu(mid[j]), inserted into L1
    mix      (cube)    y = q @ w, split between the AIVs along M
    act      (vector)  s = 2 * relu(y), inserted into L1
    proj_out (cube)    out[j] = s @ w

As in the framework's own test files, the kernel sits beside its host-side test (which
needs an NPU and is never run by pto-transpile or its emulator) and a numpy reference.
"""

import numpy as np
import pypto_pro.language as pl
import pytest
import torch

TILE = 32
HALF = TILE // 2  # each AIV handles half of a tile's rows
N = 4  # iterations of each loop

# L1 (per AIC) and UB (per AIV) byte addresses; a [TILE, TILE] fp32 tile is 4 KB, a half 2 KB
L1_P, L1_Q, L1_S, L1_W = 0x0000, 0x2000, 0x4000, 0x6000
UB_Y, UB_X, UB_XNZ, UB_R, UB_RNZ = 0x0000, 0x1000, 0x2000, 0x3000, 0x4000


@pl.pipeline.stage
def scale_in(i, sub_id, x, x_ub, x_nz, p_db):
    """Vector: this AIV's half of x[i], scaled by 0.5, into L1 as NZ rows."""
    t = x_ub.next()
    pl.load(t, x, [i * TILE + sub_id * HALF, 0])
    pl.muls(t, t, 0.5)
    nz = x_nz.next()
    pl.move(nz, t)
    p = p_db.next()
    pl.insert(p, nz, [sub_id * HALF, 0])


@pl.pipeline.stage
def project(i, mid, w_slot, p_db, left_db, right_db, acc_db):
    """Cube: mid[i] = p @ w, stored straight from L0C."""
    p = p_db.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, p)
    pl.move(right, w_slot)
    pl.matmul(acc, left, right)
    pl.store(mid, acc, [i * TILE, 0])


@pl.pipeline.stage
def gate_in(j, sub_id, mid, x_ub, x_nz, q_db):
    """Vector: relu of this AIV's half of mid[j], into L1."""
    t = x_ub.next()
    pl.load(t, mid, [j * TILE + sub_id * HALF, 0])
    pl.relu(t, t)
    nz = x_nz.next()
    pl.move(nz, t)
    q = q_db.next()
    pl.insert(q, nz, [sub_id * HALF, 0])


@pl.pipeline.stage
def mix(w_slot, q_db, left_db, right_db, acc_db, y_db):
    """Cube: y = q @ w, each AIV receives its half of the rows."""
    q = q_db.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, q)
    pl.move(right, w_slot)
    pl.matmul(acc, left, right)
    y = y_db.next()
    pl.move(y, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def act(sub_id, y_db, r_db, r_nz, s_db):
    """Vector: s = 2 * relu(y), into L1."""
    y = y_db.next()
    r = r_db.next()
    pl.relu(r, y)
    pl.muls(r, r, 2.0)
    nz = r_nz.next()
    pl.move(nz, r)
    s = s_db.next()
    pl.insert(s, nz, [sub_id * HALF, 0])


@pl.pipeline.stage
def proj_out(j, out, w_slot, s_db, left_db, right_db, acc_db):
    """Cube: out[j] = s @ w."""
    s = s_db.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, s)
    pl.move(right, w_slot)
    pl.matmul(acc, left, right)
    pl.store(out, acc, [j * TILE, 0])


# Written by pto-transpile (digest 9f5dd40612cb875d): edit the serial kernel it came from, not this one.
@pl.jit(auto_mutex=True)
def two_loops_kernel(
    x: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    w: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    mid: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],
):
    # cross-core buffers: L1 tiles the vector cores fill (fwd: vector -> cube), and the UB
    # tiles the cube fills for loop 2's `act` (fwd: cube -> vector); ids never collide
    p_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=L1_P,
        mutex_ids=[0, 1],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    q_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=L1_Q,
        mutex_ids=[2, 3],
        fwd_ids=[4, 5],
        bwd_ids=[6, 7],
    )
    y_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=UB_Y,
        mutex_ids=[4, 5],
        fwd_ids=[8, 9],
        bwd_ids=[10, 11],
    )
    s_db = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=L1_S,
        mutex_ids=[6, 7],
        fwd_ids=[12, 13],
        bwd_ids=[14, 15],
    )
    with pl.section_cube():
        w_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=L1_W,
            mutex_ids=[8],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[9, 10],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0000,
            mutex_ids=[11, 12],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[13, 14],
        )
        # w is loaded once and read by every cube stage of both loops
        w_slot = w_l1.current()
        pl.load(w_slot, w, [0, 0])
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        x_ub = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=UB_X,
            mutex_ids=[15, 16],
        )
        x_nz = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec, layout=pl.NZ),
            addrs=UB_XNZ,
            mutex_ids=[17, 18],
        )
        r_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=UB_R,
            mutex_ids=[19, 20],
        )
        r_nz = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec, layout=pl.NZ),
            addrs=UB_RNZ,
            mutex_ids=[21, 22],
        )

    _pl_ctx_arr = pl.struct_array(2, "PipeCtx", _pl_is_valid=0, i=0, sub_id=0, _pl_task_id=0)
    _pl_task_id = 0
    _pl_fwd_ids_p_db = [0, 1]
    _pl_bwd_ids_p_db = [2, 3]
    with pl.section_cube():
        pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_p_db[0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_p_db[1])
    # loop 1: validate serially first (preload 0), as the feature description recommends
    for i in pl.range(0, N):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        if i < N:
            _pl_ctx_0._pl_is_valid = 1
        else:
            _pl_ctx_0._pl_is_valid = 0
        _pl_ctx_0.i = i
        _pl_ctx_0._pl_task_id = _pl_task_id
        with pl.section_vector():
            _pl_ctx_0.sub_id = sub_id
        with pl.section_vector():
            if _pl_ctx_0._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_bwd_ids_p_db[_pl_ctx_0._pl_task_id % 2],
                )
                scale_in(_pl_ctx_0.i, _pl_ctx_0.sub_id, x, x_ub, x_nz, p_db)
                pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_fwd_ids_p_db[_pl_ctx_0._pl_task_id % 2])
        _pl_ctx_neg1 = _pl_ctx_arr[(_pl_task_id + 1) % 2]
        with pl.section_cube():
            if _pl_ctx_neg1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_fwd_ids_p_db[_pl_ctx_neg1._pl_task_id % 2],
                )
                project(_pl_ctx_neg1.i, mid, w_slot, p_db, left_db, right_db, acc_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_bwd_ids_p_db[_pl_ctx_neg1._pl_task_id % 2],
                )
        _pl_task_id = _pl_task_id + 1
    for _pl_drain in pl.range(0, 1):
        _pl_ctx_0 = _pl_ctx_arr[_pl_task_id % 2]
        _pl_ctx_0._pl_is_valid = 0
        _pl_ctx_0._pl_task_id = _pl_task_id
        _pl_ctx_neg1 = _pl_ctx_arr[(_pl_task_id + 1) % 2]
        with pl.section_cube():
            if _pl_ctx_neg1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_fwd_ids_p_db[_pl_ctx_neg1._pl_task_id % 2],
                )
                project(_pl_ctx_neg1.i, mid, w_slot, p_db, left_db, right_db, acc_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_bwd_ids_p_db[_pl_ctx_neg1._pl_task_id % 2],
                )
        _pl_task_id = _pl_task_id + 1
    with pl.section_vector():
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_p_db[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_p_db[1])

    # every core finishes loop 1 (and its writes of `mid`) before loop 2 reads it
    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)

    _pl_ctx_arr_1 = pl.struct_array(4, "PipeCtx_1", _pl_is_valid=0, j=0, sub_id=0, _pl_task_id=0)
    _pl_task_id_1 = 0
    _pl_fwd_ids_q_db = [4, 5]
    _pl_bwd_ids_q_db = [6, 7]
    _pl_fwd_ids_y_db = [8, 9]
    _pl_bwd_ids_y_db = [10, 11]
    _pl_fwd_ids_s_db = [12, 13]
    _pl_bwd_ids_s_db = [14, 15]
    with pl.section_cube():
        pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_q_db[0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_q_db[1])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_s_db[0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_s_db[1])
    with pl.section_vector():
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_y_db[0])
        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=_pl_bwd_ids_y_db[1])
    # loop 2: pipelined, upstream stages run 2 iterations ahead on each core
    for j in pl.range(0, N):
        _pl_ctx_0_1 = _pl_ctx_arr_1[_pl_task_id_1 % 4]
        if j < N:
            _pl_ctx_0_1._pl_is_valid = 1
        else:
            _pl_ctx_0_1._pl_is_valid = 0
        _pl_ctx_0_1.j = j
        _pl_ctx_0_1._pl_task_id = _pl_task_id_1
        with pl.section_vector():
            _pl_ctx_0_1.sub_id = sub_id
        with pl.section_vector():
            if _pl_ctx_0_1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_bwd_ids_q_db[_pl_ctx_0_1._pl_task_id % 2],
                )
                gate_in(_pl_ctx_0_1.j, _pl_ctx_0_1.sub_id, mid, x_ub, x_nz, q_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_fwd_ids_q_db[_pl_ctx_0_1._pl_task_id % 2],
                )
        _pl_ctx_neg1_1 = _pl_ctx_arr_1[(_pl_task_id_1 + 3) % 4]
        with pl.section_cube():
            if _pl_ctx_neg1_1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_fwd_ids_q_db[_pl_ctx_neg1_1._pl_task_id % 2],
                )
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.FIX,
                    event_id=_pl_bwd_ids_y_db[_pl_ctx_neg1_1._pl_task_id % 2],
                )
                mix(w_slot, q_db, left_db, right_db, acc_db, y_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_bwd_ids_q_db[_pl_ctx_neg1_1._pl_task_id % 2],
                )
                pl.system.set_cross_core(
                    pipe=pl.PipeType.FIX,
                    event_id=_pl_fwd_ids_y_db[_pl_ctx_neg1_1._pl_task_id % 2],
                )
        _pl_ctx_neg2_1 = _pl_ctx_arr_1[(_pl_task_id_1 + 2) % 4]
        with pl.section_vector():
            if _pl_ctx_neg2_1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_fwd_ids_y_db[_pl_ctx_neg2_1._pl_task_id % 2],
                )
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_bwd_ids_s_db[_pl_ctx_neg2_1._pl_task_id % 2],
                )
                act(_pl_ctx_neg2_1.sub_id, y_db, r_db, r_nz, s_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_bwd_ids_y_db[_pl_ctx_neg2_1._pl_task_id % 2],
                )
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_fwd_ids_s_db[_pl_ctx_neg2_1._pl_task_id % 2],
                )
        _pl_ctx_neg3_1 = _pl_ctx_arr_1[(_pl_task_id_1 + 1) % 4]
        with pl.section_cube():
            if _pl_ctx_neg3_1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_fwd_ids_s_db[_pl_ctx_neg3_1._pl_task_id % 2],
                )
                proj_out(_pl_ctx_neg3_1.j, out, w_slot, s_db, left_db, right_db, acc_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_bwd_ids_s_db[_pl_ctx_neg3_1._pl_task_id % 2],
                )
        _pl_task_id_1 = _pl_task_id_1 + 1
    for _pl_drain_1 in pl.range(0, 3):
        _pl_ctx_0_1 = _pl_ctx_arr_1[_pl_task_id_1 % 4]
        _pl_ctx_0_1._pl_is_valid = 0
        _pl_ctx_0_1._pl_task_id = _pl_task_id_1
        _pl_ctx_neg1_1 = _pl_ctx_arr_1[(_pl_task_id_1 + 3) % 4]
        with pl.section_cube():
            if _pl_ctx_neg1_1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_fwd_ids_q_db[_pl_ctx_neg1_1._pl_task_id % 2],
                )
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.FIX,
                    event_id=_pl_bwd_ids_y_db[_pl_ctx_neg1_1._pl_task_id % 2],
                )
                mix(w_slot, q_db, left_db, right_db, acc_db, y_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_bwd_ids_q_db[_pl_ctx_neg1_1._pl_task_id % 2],
                )
                pl.system.set_cross_core(
                    pipe=pl.PipeType.FIX,
                    event_id=_pl_fwd_ids_y_db[_pl_ctx_neg1_1._pl_task_id % 2],
                )
        _pl_ctx_neg2_1 = _pl_ctx_arr_1[(_pl_task_id_1 + 2) % 4]
        with pl.section_vector():
            if _pl_ctx_neg2_1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_fwd_ids_y_db[_pl_ctx_neg2_1._pl_task_id % 2],
                )
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_bwd_ids_s_db[_pl_ctx_neg2_1._pl_task_id % 2],
                )
                act(_pl_ctx_neg2_1.sub_id, y_db, r_db, r_nz, s_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.V,
                    event_id=_pl_bwd_ids_y_db[_pl_ctx_neg2_1._pl_task_id % 2],
                )
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE3,
                    event_id=_pl_fwd_ids_s_db[_pl_ctx_neg2_1._pl_task_id % 2],
                )
        _pl_ctx_neg3_1 = _pl_ctx_arr_1[(_pl_task_id_1 + 1) % 4]
        with pl.section_cube():
            if _pl_ctx_neg3_1._pl_is_valid:
                pl.system.wait_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_fwd_ids_s_db[_pl_ctx_neg3_1._pl_task_id % 2],
                )
                proj_out(_pl_ctx_neg3_1.j, out, w_slot, s_db, left_db, right_db, acc_db)
                pl.system.set_cross_core(
                    pipe=pl.PipeType.MTE1,
                    event_id=_pl_bwd_ids_s_db[_pl_ctx_neg3_1._pl_task_id % 2],
                )
        _pl_task_id_1 = _pl_task_id_1 + 1
    with pl.section_vector():
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_q_db[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_q_db[1])
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_s_db[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_bwd_ids_s_db[1])
    with pl.section_cube():
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_y_db[0])
        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_y_db[1])


def reference(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mid, out) in float32, as the kernel computes them."""
    mid = (0.5 * x) @ w
    out = (2.0 * np.maximum(np.maximum(mid, 0) @ w, 0)) @ w
    return mid.astype(np.float32), out.astype(np.float32)


@pytest.mark.soc(950)
def test_two_loops_kernel():
    torch.manual_seed(0)
    x = torch.randn(N * TILE, TILE, dtype=torch.float32, device="npu")
    w = torch.randn(TILE, TILE, dtype=torch.float32, device="npu")
    mid = torch.zeros_like(x)
    out = torch.zeros_like(x)
    two_loops_kernel[None, 1](x, w, mid, out)
    torch.npu.synchronize()
    ref_mid, ref_out = reference(x.cpu().numpy(), w.cpu().numpy())
    np.testing.assert_allclose(out.cpu().numpy(), ref_out, rtol=1e-2, atol=1e-2)
