"""The DN data path of FlashAttention at small sizes, against numpy.

Transposed loads into ZN L1 tiles, L1 -> L0 moves between fractal orders, matmul, Acc -> UB
in the dual modes, and `insert` of NZ halves with a padding row into a ZN tile, which turns
P^T into P. Expectations come from the definitions: ZN [R, C] holds the bytes of NZ [C, R]
of the transpose; insert into ZN writes `dst[col + j, row + i] = src[i, j]`; DualModeSplitN
gives AIV s columns [N/2 * s, N/2 * (s + 1)), DualModeSplitM the same rows.
"""

import textwrap

import numpy as np
import pytest

from sim_runtime import run_kernel

pytestmark = pytest.mark.emulator

HEAD = "import pypto_pro.language as pl\n"
RNG = np.random.default_rng(3)


def run(src, **inputs):
    return run_kernel("dn.py", "k", inputs, source=HEAD + textwrap.dedent(src)).outputs


def tile(space, shape, addr, dtype="DT_FP16", layout=None, extra=""):
    lay = f", layout=pl.{layout}" if layout else ""
    return (f"pl.make_tile(pl.TileType(shape={shape}, dtype=pl.{dtype}, target_memory=pl.MemorySpace.{space}"
            f"{lay}{extra}), addr={addr})")


#: L0 tiles of the cube, as lines of a `with pl.section_cube():` body in the kernels below
CUBE = "\n            ".join([
    f"lt = {tile('Left', [32, 32], 0, layout='NZ')}",
    f"rt = {tile('Right', [32, 32], 0, layout='ZN')}",
    f"acc = {tile('Acc', [32, 32], 0, 'DT_FP32', 'NZ')}",
])


def test_transposed_load_into_zn_has_the_bytes_of_an_nz_load():
    # q_zn(d, s) = q[s, d]; the NZ [s, d] tile at the same L1 address therefore holds q itself
    out = run(f"""
    @pl.jit
    def k(q: pl.Tensor[[32, 32], pl.DT_FP16], eye: pl.Tensor[[32, 32], pl.DT_FP16],
          o1: pl.Tensor[[32, 32], pl.DT_FP32], o2: pl.Tensor[[32, 32], pl.DT_FP32]):
        with pl.section_cube():
            q_zn = {tile("Mat", [32, 32], 0, layout="ZN")}
            q_nz = {tile("Mat", [32, 32], 0, layout="NZ")}
            e_l1 = {tile("Mat", [32, 32], 0x1000, layout="NZ")}
            {CUBE}
            pl.load(q_zn, q, [0, 0], order=[1, 0])
            pl.load(e_l1, eye, [0, 0])
            pl.system.bar_all()
            pl.move(lt, q_nz)
            pl.move(rt, e_l1)
            pl.system.bar_all()
            pl.matmul(acc, lt, rt)
            pl.system.bar_all()
            pl.store(o1, acc, [0, 0])
            pl.system.bar_all()
            pl.move(lt, e_l1)
            pl.move(rt, q_zn)  # ZN -> Right ZN: a plain copy of Q^T
            pl.system.bar_all()
            pl.matmul(acc, lt, rt)
            pl.system.bar_all()
            pl.store(o2, acc, [0, 0])
    """, q=(q := RNG.random((32, 32)).astype(np.float16)), eye=np.eye(32, dtype=np.float16))
    assert np.array_equal(out["o1"], q.astype(np.float32))
    assert np.array_equal(out["o2"], q.T.astype(np.float32))


def test_qk_then_pv_in_dn_form_with_split_n_and_split_m():
    # S^T = K Q^T split along N (queries) and O = P V split along M (queries): AIV s gets the
    # same query half from both
    src = f"""
    @pl.jit
    def k(q: pl.Tensor[[32, 32], pl.DT_FP16], kk: pl.Tensor[[32, 32], pl.DT_FP16], v: pl.Tensor[[32, 32], pl.DT_FP16],
          pt: pl.Tensor[[32, 32], pl.DT_FP16], st: pl.Tensor[[64, 16], pl.DT_FP32], o: pl.Tensor[[32, 32], pl.DT_FP32]):
        st_ub = {tile("Vec", [32, 16], 0, "DT_FP32")}
        o_ub = {tile("Vec", [16, 32], 0x1000, "DT_FP32")}
        with pl.section_cube():
            q_zn = {tile("Mat", [32, 32], 0, layout="ZN")}
            k_nz = {tile("Mat", [32, 32], 0x800, layout="NZ")}
            v_nz = {tile("Mat", [32, 32], 0x1000, layout="NZ")}
            p_zn = {tile("Mat", [32, 32], 0x1800, layout="ZN")}
            {CUBE}
            pl.load(q_zn, q, [0, 0], order=[1, 0])
            pl.load(k_nz, kk, [0, 0])
            pl.load(v_nz, v, [0, 0])
            pl.load(p_zn, pt, [0, 0], order=[1, 0])  # P from P^T in GM
            pl.system.bar_all()
            pl.move(lt, k_nz)
            pl.move(rt, q_zn)
            pl.system.bar_all()
            pl.matmul(acc, lt, rt)
            pl.system.bar_all()
            pl.move(st_ub, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitN)
            pl.system.bar_all()
            pl.move(lt, p_zn)  # ZN -> Left NZ: fractals transposed, values kept
            pl.move(rt, v_nz)  # NZ -> Right ZN
            pl.system.bar_all()
            pl.matmul(acc, lt, rt)
            pl.system.bar_all()
            pl.move(o_ub, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)
            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)
        with pl.section_vector():
            s = pl.get_subblock_idx()
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=0)
            pl.store(st, st_ub, [32 * s, 0])
            pl.store(o, o_ub, [16 * s, 0])
    """
    q, kk, v, pt = (RNG.random((32, 32)).astype(np.float16) for _ in range(4))
    out = run(src, q=q, kk=kk, v=v, pt=pt)
    s_t = kk.astype(np.float64) @ q.astype(np.float64).T
    for s in (0, 1):
        np.testing.assert_allclose(out["st"][32 * s:32 * s + 32], s_t[:, 16 * s:16 * s + 16], rtol=1e-6)
    np.testing.assert_allclose(out["o"], pt.T.astype(np.float64) @ v.astype(np.float64), rtol=1e-6)


def test_insert_of_nz_halves_with_a_padding_row_turns_p_t_into_p():
    # Each AIV holds E^T for its 16 queries as two NZ [17, 16] halves (kv 0..15 and 16..31,
    # row 16 is padding) and inserts them at (kv, s) = (0, 16 s) and (16, 16 s) of a ZN
    # [32 s, 32 kv] L1 tile. The cube then computes P @ I = P.
    src = f"""
    @pl.jit
    def k(et: pl.Tensor[[32, 32], pl.DT_FP16], eye: pl.Tensor[[32, 32], pl.DT_FP16],
          o: pl.Tensor[[32, 32], pl.DT_FP32]):
        p_zn = {tile("Mat", [32, 32], 0, layout="ZN")}
        with pl.section_vector():
            s = pl.get_subblock_idx()
            nd = {tile("Vec", [16, 16], 0)}
            main = {tile("Vec", [17, 16], 0x1000, layout="NZ", extra=", valid_shape=[16, 16]")}
            back = {tile("Vec", [17, 16], 0x1000 + 17 * 16 * 2, layout="NZ", extra=", valid_shape=[16, 16]")}
            pl.load(nd, et, [0, 16 * s])
            pl.system.bar_all()
            pl.move(main, nd)
            pl.system.bar_all()
            pl.load(nd, et, [16, 16 * s])
            pl.system.bar_all()
            pl.move(back, nd)
            pl.system.bar_all()
            pl.insert(p_zn, main, [0, 16 * s])
            pl.insert(p_zn, back, [16, 16 * s])
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=0)
        with pl.section_cube():
            e_l1 = {tile("Mat", [32, 32], 0x1000, layout="NZ")}
            {CUBE}
            pl.load(e_l1, eye, [0, 0])
            pl.system.bar_all()
            pl.move(rt, e_l1)
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=0)
            pl.move(lt, p_zn)
            pl.system.bar_all()
            pl.matmul(acc, lt, rt)
            pl.system.bar_all()
            pl.store(o, acc, [0, 0])
    """
    et = RNG.random((32, 32)).astype(np.float16)  # E^T [kv, s]
    out = run(src, et=et, eye=np.eye(32, dtype=np.float16))
    assert np.array_equal(out["o"], et.T.astype(np.float32))


def test_is_transpose_is_order_1_0():
    src = f"""
    @pl.jit
    def k(q: pl.Tensor[[32, 32], pl.DT_FP16], eye: pl.Tensor[[32, 32], pl.DT_FP16], o: pl.Tensor[[32, 32], pl.DT_FP32]):
        with pl.section_cube():
            q_zn = {tile("Mat", [32, 32], 0, layout="ZN")}
            e_l1 = {tile("Mat", [32, 32], 0x1000, layout="NZ")}
            {CUBE}
            pl.load(q_zn, q, [0, 0], is_transpose=True)
            pl.load(e_l1, eye, [0, 0])
            pl.system.bar_all()
            pl.move(lt, e_l1)
            pl.move(rt, q_zn)
            pl.system.bar_all()
            pl.matmul(acc, lt, rt)
            pl.system.bar_all()
            pl.store(o, acc, [0, 0])
    """
    q = RNG.random((32, 32)).astype(np.float16)
    assert np.array_equal(run(src, q=q, eye=np.eye(32, dtype=np.float16))["o"], q.T.astype(np.float32))
