"""Cube data paths and less common ops: matmul_acc, transposed load, ZN insert, subviews."""

import textwrap

import numpy as np
import pytest

from sim_runtime import run_kernel

pytestmark = pytest.mark.emulator

HEAD = "import pypto_pro.language as pl\n"


def run(src, inputs=None, name="k", **kw):
    return run_kernel("kernel.py", name, inputs or {}, source=HEAD + textwrap.dedent(src), **kw)


def group(space, shape, addr, mutex, dtype="DT_FP32", layout=""):
    lay = f", layout=pl.{layout}" if layout else ""
    return (f"pl.make_tile_group(type=pl.TileType(shape={shape}, dtype=pl.{dtype}, "
            f"target_memory=pl.MemorySpace.{space}{lay}), addrs={addr}, mutex_ids={mutex})")


RNG = np.random.default_rng(5)


def test_matmul_acc_over_k_blocks():
    src = f"""
    @pl.jit
    def k(a: pl.Tensor[[32, 64], pl.DT_FP32], b: pl.Tensor[[64, 32], pl.DT_FP32], out: pl.Tensor[[32, 32], pl.DT_FP32]):
        with pl.section_cube():
            al = {group("Mat", [32, 32], 0, [0, 1])}
            bl = {group("Mat", [32, 32], 0x8000, [2, 3])}
            lt = {group("Left", [32, 32], 0, [4, 5])}
            rt = {group("Right", [32, 32], 0, [6, 7])}
            acc = {group("Acc", [32, 32], 0, [8])}
            for kk in pl.range(2):
                pl.load(al[kk], a, [0, 32 * kk])
                pl.load(bl[kk], b, [32 * kk, 0])
                pl.move(lt[kk], al[kk])
                pl.move(rt[kk], bl[kk])
                if kk == 0:
                    pl.matmul(acc[0], lt[0], rt[0])
                else:
                    pl.matmul_acc(acc[0], acc[0], lt[1], rt[1])
            pl.store(out, acc[0], [0, 0])
    """
    a = RNG.standard_normal((32, 64)).astype(np.float32)
    b = RNG.standard_normal((64, 32)).astype(np.float32)
    res = run(src, {"a": a, "b": b})
    np.testing.assert_allclose(res.outputs["out"], a @ b, rtol=1e-5, atol=1e-5)
    assert [c for c in res.cores] == ["b0.AIC"]  # cube-only kernel: no vector cores


def test_transposed_load_into_zn():
    src = f"""
    @pl.jit
    def k(at: pl.Tensor[[32, 32], pl.DT_FP32], eye: pl.Tensor[[32, 32], pl.DT_FP32],
          out: pl.Tensor[[32, 32], pl.DT_FP32]):
        with pl.section_cube():
            al = {group("Mat", [32, 32], 0, [0], layout="ZN")}
            el = {group("Mat", [32, 32], 0x4000, [1])}
            lt = {group("Left", [32, 32], 0, [2])}
            rt = {group("Right", [32, 32], 0, [3])}
            acc = {group("Acc", [32, 32], 0, [4])}
            pl.load(al[0], at, [0, 0], order=[1, 0])
            pl.load(el[0], eye, [0, 0])
            pl.move(lt[0], al[0])
            pl.move(rt[0], el[0])
            pl.matmul(acc[0], lt[0], rt[0])
            pl.store(out, acc[0], [0, 0])
    """
    at = RNG.standard_normal((32, 32)).astype(np.float32)
    out = run(src, {"at": at, "eye": np.eye(32, dtype=np.float32)}).outputs["out"]
    assert np.array_equal(out, at.T)


@pytest.mark.parametrize("layout", ["NZ", "ZN"])
def test_insert_halves_into_l1(layout):
    src = f"""
    @pl.jit
    def k(x: pl.Tensor[[32, 32], pl.DT_FP32], eye: pl.Tensor[[32, 32], pl.DT_FP32],
          out: pl.Tensor[[32, 32], pl.DT_FP32]):
        p = {group("Mat", [32, 32], 0, [0], layout=layout)}
        with pl.section_vector():
            s = pl.get_subblock_idx()
            v = {group("Vec", [16, 32], 0, [1])}
            vz = {group("Vec", [16, 32], 0x4000, [2], layout="NZ")}
            pl.load(v[0], x, [16 * s, 0])
            pl.move(vz[0], v[0])
            pl.insert(p[0], vz[0], [16 * s, 0])
            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=0)
        with pl.section_cube():
            el = {group("Mat", [32, 32], 0x8000, [3])}
            lt = {group("Left", [32, 32], 0, [4])}
            rt = {group("Right", [32, 32], 0, [5])}
            acc = {group("Acc", [32, 32], 0, [6])}
            pl.load(el[0], eye, [0, 0])
            pl.move(rt[0], el[0])
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=0)
            pl.move(lt[0], p[0])
            pl.matmul(acc[0], lt[0], rt[0])
            pl.store(out, acc[0], [0, 0])
    """
    # into ZN the copy is physical: the offset addresses the NZ [C, R] view, i.e. a transpose
    x = RNG.standard_normal((32, 32)).astype(np.float32)
    out = run(src, {"x": x, "eye": np.eye(32, dtype=np.float32)}).outputs["out"]
    assert np.array_equal(out, x if layout == "NZ" else x.T)


VEC = f"""
@pl.jit
def k(x: pl.Tensor[[16, 32], pl.DT_FP32], out: pl.Tensor[[16, 32], pl.DT_FP32]):
    with pl.section_vector():
        t = {group("Vec", [16, 32], 0, [0])}
        u = {group("Vec", [16, 32], 0x4000, [1])}
        BODY
"""


def vec(body, x):
    return run(VEC.replace("BODY", textwrap.indent(textwrap.dedent(body), " " * 8).strip()), {"x": x}).outputs["out"]


def test_subview_writes_through_to_the_parent():
    x = RNG.standard_normal((16, 32)).astype(np.float32)
    out = vec("""
        pl.load(t[0], x, [0, 0])
        sub = t[0][4:8, 8:16]
        pl.muls(sub, sub, 10.0)
        pl.store(out, t[0], [0, 0])
    """, x)
    want = x.copy()
    want[4:8, 8:16] *= 10
    assert np.array_equal(out, want)


def test_compare_and_select():
    x = RNG.standard_normal((16, 32)).astype(np.float32)
    out = vec("""
        m = pl.make_tile(pl.TileType(shape=[16, 32], dtype=pl.DT_UINT8, target_memory=pl.MemorySpace.Vec), addr=0x8000)
        pl.load(t[0], x, [0, 0])
        pl.gt(m, t[0], 0.0)
        pl.select(u[0], m, t[0], 0.0, t[0])
        pl.store(out, u[0], [0, 0])
    """, x)
    assert np.array_equal(out, np.where(x > 0, x, 0))


def test_load_tile_extract_move_and_atomic_store():
    x = RNG.standard_normal((16, 32)).astype(np.float32)
    out = vec("""
        h = pl.make_tile(pl.TileType(shape=[8, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x8000)
        e = pl.make_tile(pl.TileType(shape=[4, 16], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x9000)
        pl.load_tile(h, x, [1, 0])
        pl.system.bar_all()  # make_tile tiles have no auto_mutex: order MTE2 -> V by hand
        pl.move(e, h, [2, 8])
        pl.system.bar_all()
        pl.store(out, e, [0, 0])
        pl.store(out, e, [0, 0], atomic=pl.AtomicType.AtomicAdd)
        pl.store(out, h, [8, 0])
    """, x)
    want = np.zeros((16, 32), np.float32)
    want[0:4, 0:16] = 2 * x[10:14, 8:24]
    want[8:16] = x[8:16]
    assert np.array_equal(out, want)
