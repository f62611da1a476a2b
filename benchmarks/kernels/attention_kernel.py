"""Attention-shaped serial kernel for the transpile benchmark: O = softmax(Q K^T) V, 4 stages.

A stand-in of FlashAttention's size and shape for `bench_transpile.py`: four stages that
alternate cube and vector, nested pipeline loops (query tiles outside, key/value tiles
inside), scalar counters that travel in the ctx ring, online-softmax state in tuple rings
of tiles indexed by those counters, and the vector work written as `@pl.vector_function`s
that call one another. The file also carries what real kernel files carry: a docstring,
tiling constants, an address plan with asserts, a reference and a device test.

Stages, in loop order:
  score   (cube)   S = Q K_j^T, split along M: AIV s gets rows 32s.. -> s_vec_db  (Vec)
  softmax (vector) running max and sum in vector functions; P as NZ -> p_mat_db  (Mat)
  value   (cube)   O_j = P V_j, split along M                        -> o_vec_db  (Vec)
  update  (vector) O = c * O + O_j; after the last tile O / l to GM
"""

import math
import os

import numpy as np
import pypto_pro.language as pl
import pytest
import torch
import torch_npu  # noqa: F401  (registers the NPU device with torch)
from pypto_pro.language import Vf as vf

import pypto

ST_DEVICE_ID = int(os.environ.get("TILE_FWK_DEVICE_ID", 0))
ST_DEVICE = f"npu:{ST_DEVICE_ID}"

# -- problem and tile sizes ------------------------------------------------------------------
SEQ_Q = 128
SEQ_KV = 256
TS = 64  # query rows per tile
TKV = 64  # key/value rows per tile
TD = 64  # head dimension
TS_HALF = TS // 2  # query rows per AIV
SCALE = 1.0 / math.sqrt(TD)

# -- vector register facts -------------------------------------------------------------------
FP32_LANES = 64  # one 256-byte register
ROW_REGS = TKV // FP32_LANES  # registers per score row
NEG_BIG = -1e9  # initial running maximum

# -- UB plan, per AIV (bytes) ----------------------------------------------------------------
UB_BYTES = 192 * 1024
S_BYTES = TS_HALF * TKV * 4  # fp32 [TS_HALF, TKV] half of S
P_BYTES = TS_HALF * TKV * 4  # fp32 [TS_HALF, TKV] half of P
O_BYTES = TS_HALF * TD * 4  # fp32 [TS_HALF, TD]
RED_BYTES = TS_HALF * 4  # one fp32 value per local query row
VA_S = 0
VA_P = VA_S + 2 * S_BYTES
VA_P_NZ = VA_P + 2 * P_BYTES
VA_O_TILE = VA_P_NZ + 2 * P_BYTES
VA_O = VA_O_TILE + 2 * O_BYTES
VA_MAX = VA_O + O_BYTES
VA_SUM = VA_MAX + 3 * RED_BYTES
VA_CORR = VA_SUM + 3 * RED_BYTES
VA_SCRATCH = VA_CORR + 3 * RED_BYTES
VA_END = VA_SCRATCH + RED_BYTES
assert VA_END <= UB_BYTES, f"UB plan needs {VA_END} bytes, UB has {UB_BYTES}"

# -- L1 plan (bytes) -------------------------------------------------------------------------
L1_BYTES = 512 * 1024
TILE_BYTES = TS * TKV * 4
MA_Q = 0
MA_K = MA_Q + 2 * TILE_BYTES
MA_V = MA_K + 2 * TILE_BYTES
MA_P = MA_V + 2 * TILE_BYTES
MA_END = MA_P + 2 * TILE_BYTES
assert MA_END <= L1_BYTES, f"L1 plan needs {MA_END} bytes, L1 has {L1_BYTES}"


# -- vector functions ------------------------------------------------------------------------

@pl.vector_function
def row_max_vf(s_tile, out):
    """out[r] = SCALE * max over the row r of s_tile."""
    mask = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    one = vf.create_mask(pattern=pl.MaskPattern.VL1, dtype=pl.DT_FP32)  # a single fp32 result per row
    for r in pl.range(0, TS_HALF):
        best = vf.full(NEG_BIG)
        for j in pl.range(0, ROW_REGS):
            x = vf.load_align(s_tile, r * TKV + j * FP32_LANES)
            best = vf.max(best, x, mask)
        best = vf.reduce_max(best, mask)
        best = vf.muls(best, SCALE, mask)
        vf.store_align(out + r, best, one)


@pl.vector_function
def exp_rows_vf(s_tile, p_tile, max_tile, sum_out):
    """P[r, c] = exp(SCALE * S[r, c] - m[r]); sum_out[r] = sum over the row of P."""
    mask = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    one = vf.create_mask(pattern=pl.MaskPattern.VL1, dtype=pl.DT_FP32)  # a single fp32 result per row
    for r in pl.range(0, TS_HALF):
        m = vf.load_align(max_tile, r, dist=pl.LoadDist.BRC_B32)
        total = vf.full(0.0, mask)
        for j in pl.range(0, ROW_REGS):
            x = vf.load_align(s_tile, r * TKV + j * FP32_LANES)
            x = vf.muls(x, SCALE, mask)
            e = vf.exp_sub(x, m, mask)
            total = vf.add(total, e, mask)
            vf.store_align(p_tile, e, mask, r * TKV + j * FP32_LANES)
        total = vf.reduce_sum(total, mask)
        vf.store_align(sum_out + r, total, one)


@pl.vector_function
def softmax_first_vf(s_tile, p_tile, max_tile, sum_tile):
    """First key/value tile of a query tile: m = tile max, l = tile sum."""
    row_max_vf(s_tile, max_tile)
    vf.mem_bar(mode=pl.MemBarMode.VST_VLD)
    exp_rows_vf(s_tile, p_tile, max_tile, sum_tile)


@pl.vector_function
def softmax_next_vf(s_tile, p_tile, max_tile, sum_tile, corr, scratch):
    """Later tiles: m' = max(m, tile max), c = exp(m - m'), l' = c * l + tile sum."""
    mask = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    one = vf.create_mask(pattern=pl.MaskPattern.VL1, dtype=pl.DT_FP32)  # a single fp32 result per row
    row_max_vf(s_tile, scratch)
    vf.mem_bar(mode=pl.MemBarMode.VST_VLD)
    for r in pl.range(0, TS_HALF):
        m_tile = vf.load_align(scratch, r, dist=pl.LoadDist.BRC_B32)
        m_old = vf.load_align(max_tile, r, dist=pl.LoadDist.BRC_B32)
        m_new = vf.max(m_old, m_tile, mask)
        c = vf.exp_sub(m_old, m_new, mask)
        vf.store_align(max_tile + r, m_new, one)
        vf.store_align(corr + r, c, one)
    vf.mem_bar(mode=pl.MemBarMode.VST_VLD)
    exp_rows_vf(s_tile, p_tile, max_tile, scratch)
    vf.mem_bar(mode=pl.MemBarMode.VST_VLD)
    for r in pl.range(0, TS_HALF):
        c = vf.load_align(corr, r, dist=pl.LoadDist.BRC_B32)
        l_old = vf.load_align(sum_tile, r, dist=pl.LoadDist.BRC_B32)
        l_tile = vf.load_align(scratch, r, dist=pl.LoadDist.BRC_B32)
        l_new = vf.mul(c, l_old, mask)
        l_new = vf.add(l_new, l_tile, mask)
        vf.store_align(sum_tile + r, l_new, one)


@pl.vector_function
def rescale_add_vf(o_acc, o_tile, corr):
    """O[r, :] = c[r] * O[r, :] + O_tile[r, :], one register at a time."""
    mask = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for r in pl.range(0, TS_HALF):
        c = vf.load_align(corr, r, dist=pl.LoadDist.BRC_B32)
        for j in pl.range(0, TD // FP32_LANES):
            o = vf.load_align(o_acc, r * TD + j * FP32_LANES)
            t = vf.load_align(o_tile, r * TD + j * FP32_LANES)
            o = vf.mul(o, c, mask)
            o = vf.add(o, t, mask)
            vf.store_align(o_acc, o, mask, r * TD + j * FP32_LANES)


@pl.vector_function
def normalise_vf(o_acc, sum_tile):
    """O[r, :] = O[r, :] / l[r]."""
    mask = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for r in pl.range(0, TS_HALF):
        total = vf.load_align(sum_tile, r, dist=pl.LoadDist.BRC_B32)
        for j in pl.range(0, TD // FP32_LANES):
            o = vf.load_align(o_acc, r * TD + j * FP32_LANES)
            o = vf.div(o, total, mask)
            vf.store_align(o_acc, o, mask, r * TD + j * FP32_LANES)


# -- stages ----------------------------------------------------------------------------------

@pl.pipeline.stage
def score(kj, k, q_slot, k_l1_db, left_db, right_db, acc_db, s_vec_db):
    """Cube: S = Q K_kj^T; each AIV receives the rows of its half of the queries."""
    k_l1 = k_l1_db.next()
    pl.load(k_l1, k, [kj * TKV, 0])
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, q_slot)
    pl.move(right, k_l1)
    pl.matmul(acc, left, right)
    s_vec = s_vec_db.next()
    pl.move(s_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def softmax(kj, tick, q_count, sub_id, s_vec_db, p_vec_db, p_nz_db, p_mat_db, max_ring, sum_ring, corr_ring,
            scratch):
    """Vector: online softmax along the rows of this AIV's half of S; P into L1 as NZ."""
    s_vec = s_vec_db.next()
    p_vec = p_vec_db.next()
    if kj == 0:
        softmax_first_vf(s_vec, p_vec, max_ring[q_count % 3], sum_ring[q_count % 3])
    else:
        softmax_next_vf(s_vec, p_vec, max_ring[q_count % 3], sum_ring[q_count % 3], corr_ring[tick % 3], scratch)
    p_nz = p_nz_db.next()
    pl.move(p_nz, p_vec)  # ND -> NZ: insert needs an NZ source tile
    p_mat = p_mat_db.next()
    pl.insert(p_mat, p_nz, [sub_id * TS_HALF, 0])


@pl.pipeline.stage
def value(kj, v, v_l1_db, p_mat_db, left_db, right_db, acc_db, o_vec_db):
    """Cube: O_kj = P V_kj; each AIV receives the rows of its half of the queries."""
    v_l1 = v_l1_db.next()
    pl.load(v_l1, v, [kj * TKV, 0])
    p_mat = p_mat_db.next()
    left = left_db.next()
    right = right_db.next()
    acc = acc_db.next()
    pl.move(left, p_mat)
    pl.move(right, v_l1)
    pl.matmul(acc, left, right)
    o_vec = o_vec_db.next()
    pl.move(o_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def update(kj, kv_tiles, tick, q_count, qi, sub_id, o, o_vec_db, o_acc_db, sum_ring, corr_ring):
    """Vector: O = c * O + O_kj; after the last key/value tile O / l goes to GM."""
    o_vec = o_vec_db.next()
    o_acc = o_acc_db.current()
    if kj == 0:
        pl.ub_copy(o_acc, o_vec)
    else:
        rescale_add_vf(o_acc, o_vec, corr_ring[tick % 3])
    if kj == kv_tiles - 1:
        normalise_vf(o_acc, sum_ring[q_count % 3])
        pl.store(o, o_acc, [qi * TS + sub_id * TS_HALF, 0])


@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=2))
def attention_kernel(
    q: pl.Tensor[[SEQ_Q, TD], pl.DT_FP32],
    k: pl.Tensor[[SEQ_KV, TD], pl.DT_FP32],
    v: pl.Tensor[[SEQ_KV, TD], pl.DT_FP32],
    o: pl.Tensor[[SEQ_Q, TD], pl.DT_FP32],
):
    q_tiles = q.shape[0] // TS
    kv_tiles = k.shape[0] // TKV

    # Cross-core buffers: fwd_ids/bwd_ids tell the transform where to insert sync
    s_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[TS_HALF, TKV], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=VA_S,
        mutex_ids=[14, 15],
        fwd_ids=[0, 1],
        bwd_ids=[2, 3],
    )
    p_mat_db = pl.make_tile_group(
        type=pl.TileType(shape=[TS, TKV], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=MA_P,
        mutex_ids=[16, 17],
        fwd_ids=[4, 5],
        bwd_ids=[6, 7],
    )
    o_vec_db = pl.make_tile_group(
        type=pl.TileType(shape=[TS_HALF, TD], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=VA_O_TILE,
        mutex_ids=[18, 19],
        fwd_ids=[8, 9],
        bwd_ids=[10, 11],
    )

    with pl.section_cube():
        q_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TS, TD], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=MA_Q,
            mutex_ids=[0, 1],
        )
        k_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TKV, TD], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=MA_K,
            mutex_ids=[2, 3],
        )
        v_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TKV, TD], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=MA_V,
            mutex_ids=[4, 5],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TS, TD], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0000,
            mutex_ids=[6, 7],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TD, TKV], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0000,
            mutex_ids=[8, 9],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TS, TKV], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ,
                             fractal=1024),
            addrs=0x0000,
            mutex_ids=[10, 11, 12, 13],
        )

    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        p_vec_db = pl.make_tile_group(
            type=pl.TileType(shape=[TS_HALF, TKV], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=VA_P,
            mutex_ids=[20, 21],
        )
        p_nz_db = pl.make_tile_group(
            type=pl.TileType(shape=[TS_HALF, TKV], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                             layout=pl.NZ),
            addrs=VA_P_NZ,
            mutex_ids=[22, 23],
        )
        o_acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TS_HALF, TD], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=VA_O,
            mutex_ids=[24],
        )
        red_type = pl.TileType(shape=[1, TS_HALF], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        max_0 = pl.make_tile(red_type, addr=VA_MAX, size=RED_BYTES)
        max_1 = pl.make_tile(red_type, addr=VA_MAX + RED_BYTES, size=RED_BYTES)
        max_2 = pl.make_tile(red_type, addr=VA_MAX + 2 * RED_BYTES, size=RED_BYTES)
        sum_0 = pl.make_tile(red_type, addr=VA_SUM, size=RED_BYTES)
        sum_1 = pl.make_tile(red_type, addr=VA_SUM + RED_BYTES, size=RED_BYTES)
        sum_2 = pl.make_tile(red_type, addr=VA_SUM + 2 * RED_BYTES, size=RED_BYTES)
        corr_0 = pl.make_tile(red_type, addr=VA_CORR, size=RED_BYTES)
        corr_1 = pl.make_tile(red_type, addr=VA_CORR + RED_BYTES, size=RED_BYTES)
        corr_2 = pl.make_tile(red_type, addr=VA_CORR + 2 * RED_BYTES, size=RED_BYTES)
        scratch = pl.make_tile(red_type, addr=VA_SCRATCH, size=RED_BYTES)
        # rings of three: at preload 2 softmax runs two tasks ahead of update
        max_ring = (max_0, max_1, max_2)
        sum_ring = (sum_0, sum_1, sum_2)
        corr_ring = (corr_0, corr_1, corr_2)

    tick = 0
    q_count = 0
    for qi in pl.range(0, q_tiles):
        # the query tile stays in L1 for the whole inner loop
        with pl.section_cube():
            q_slot = q_l1_db.next()
            pl.load(q_slot, q, [qi * TS, 0])
        for kj in pl.range(0, kv_tiles):
            with pl.section_cube():
                score(kj, k, q_slot, k_l1_db, left_db, right_db, acc_db, s_vec_db)
            with pl.section_vector():
                softmax(kj, tick, q_count, sub_id, s_vec_db, p_vec_db, p_nz_db, p_mat_db, max_ring, sum_ring,
                        corr_ring, scratch)
            with pl.section_cube():
                value(kj, v, v_l1_db, p_mat_db, left_db, right_db, acc_db, o_vec_db)
            with pl.section_vector():
                update(kj, kv_tiles, tick, q_count, qi, sub_id, o, o_vec_db, o_acc_db, sum_ring, corr_ring)
            tick = tick + 1
        q_count = q_count + 1


def reference(q, k, v):
    """softmax(q k^T / sqrt(d)) v in float64: what the kernel computes."""
    s = q.astype(np.float64) @ k.astype(np.float64).T / math.sqrt(q.shape[1])
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


@pytest.mark.soc(950)
@pypto.options(pass_options={"enable_slice": False})
def test_attention_kernel():
    device = ST_DEVICE
    torch.npu.set_device(device)
    torch.manual_seed(0)
    q = torch.rand(SEQ_Q, TD, device=device, dtype=torch.float32)
    k = torch.rand(SEQ_KV, TD, device=device, dtype=torch.float32)
    v = torch.rand(SEQ_KV, TD, device=device, dtype=torch.float32)
    o = torch.zeros(SEQ_Q, TD, device=device, dtype=torch.float32)
    attention_kernel[None, 1](q, k, v, o)
    torch.npu.synchronize()
    ref = reference(q.cpu().numpy(), k.cpu().numpy(), v.cpu().numpy())
    torch.testing.assert_close(o.cpu(), torch.from_numpy(ref).float(), rtol=5e-3, atol=5e-3)
