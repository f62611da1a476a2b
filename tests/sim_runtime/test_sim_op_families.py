"""Block and register ops against independent numpy computations, one kernel per family,
written the way production kernels are (dynamic dims, scalar trip counts, strided loops)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim_runtime import run_kernel
from sim_runtime.verify import verify

pytestmark = pytest.mark.emulator

HEAD = "import pypto_pro.language as pl\n"


def vec_kernel(params: str, body: str, tiles: str) -> str:
    """A vector-only kernel: `tiles` declares the tiles, `body` runs in the vector section."""
    indent = lambda text, n: "\n".join(" " * n + line if line else "" for line in text.strip("\n").splitlines())  # noqa: E731
    return (HEAD + "\n@pl.jit\ndef k(" + params + "):\n" + indent(tiles, 4) + "\n    with pl.section_vector():\n"
            + indent(body, 8) + "\n")


def vtile(name: str, shape, dtype: str, addr: int, **extra) -> str:
    """A one-slot tile group (its mutex id orders the tile's ops across pipes, as auto_mutex does)."""
    opts = "".join(f", {k}={v}" for k, v in extra.items())
    return (f"{name} = pl.make_tile_group(type=pl.TileType(shape={list(shape)}, dtype=pl.{dtype}, "
            f"target_memory=pl.MemorySpace.Vec{opts}), addrs={addr:#x}, mutex_ids=[{addr // 0x100 % 32}]).current()")


def run(src: str, **inputs):
    return run_kernel(source=src, kernel_name="k", inputs=inputs, mode="sequential").outputs


RNG = np.random.default_rng(7)


def test_fused_ops_overwrite_lhs_with_the_intermediate():
    a, b = RNG.standard_normal((8, 16)).astype(np.float32), RNG.standard_normal((8, 16)).astype(np.float32)
    tiles = "\n".join(vtile(n, (8, 16), "DT_FP32", i * 0x200) for i, n in enumerate("xyo"))
    body = """
pl.load(x, a, [0, 0])
pl.load(y, b, [0, 0])
pl.add_relu(o, x, y)
pl.store(out, o, [0, 0])
pl.store(lhs, x, [0, 0])
"""
    p = ", ".join(f"{n}: pl.Tensor[[8, 16], pl.DT_FP32]" for n in ("a", "b", "out", "lhs"))
    got = run(vec_kernel(p, body, tiles), a=a, b=b)
    np.testing.assert_array_equal(got["out"], np.maximum(a + b, 0))
    np.testing.assert_array_equal(got["lhs"], a + b)


@pytest.mark.parametrize(("op", "fn"), [("fused_mul_add", lambda o, a, b: a * o + b),
                                        ("mul_add_dst", lambda o, a, b: a * b + o),
                                        ("fused_mul_add_relu", lambda o, a, b: np.maximum(o * a + b, 0))])
def test_accumulating_ops_read_their_destination(op, fn):
    o, a, b = (RNG.standard_normal((4, 16)).astype(np.float32) for _ in range(3))
    tiles = "\n".join(vtile(n, (4, 16), "DT_FP32", i * 0x100) for i, n in enumerate(("to", "ta", "tb")))
    body = f"""
pl.load(to, o, [0, 0])
pl.load(ta, a, [0, 0])
pl.load(tb, b, [0, 0])
pl.{op}(to, ta, tb)
pl.store(o, to, [0, 0])
"""
    p = ", ".join(f"{n}: pl.Tensor[[4, 16], pl.DT_FP32]" for n in "oab")
    got = run(vec_kernel(p, body, tiles), o=o, a=a, b=b)["o"]
    np.testing.assert_allclose(got, fn(o, a, b).astype(np.float32), rtol=1e-6)


def test_partadd_copies_the_full_input_outside_the_small_one():
    a, b = RNG.standard_normal((8, 16)).astype(np.float32), RNG.standard_normal((8, 16)).astype(np.float32)
    tiles = "\n".join([vtile("x", (8, 16), "DT_FP32", 0), vtile("y", (8, 16), "DT_FP32", 0x200, valid_shape=[-1, -1]),
                       vtile("o", (8, 16), "DT_FP32", 0x400)])
    body = """
pl.load(x, a, [0, 0])
pl.load(y, b, [0, 0])
pl.set_validshape(y, [5, 9])
pl.partadd(o, x, y)
pl.store(out, o, [0, 0])
"""
    p = ", ".join(f"{n}: pl.Tensor[[8, 16], pl.DT_FP32]" for n in ("a", "b", "out"))
    want = a.copy()
    want[:5, :9] += b[:5, :9]
    np.testing.assert_array_equal(run(vec_kernel(p, body, tiles), a=a, b=b)["out"], want)


@pytest.mark.parametrize(("mode", "out_shape"), [("NORMAL", (8, 8)), ("EXPAND", (8, 16))])
def test_fillpad_fills_outside_the_source_window(mode, out_shape):
    x = RNG.integers(-100, 100, (8, 8)).astype(np.int32)
    tiles = "\n".join([vtile("s", (8, 8), "DT_INT32", 0, valid_shape=[-1, -1]),
                       vtile("d", out_shape, "DT_INT32", 0x400, pad="pl.TilePad.min")])
    body = f"""
pl.set_validshape(s, [5, 7])
pl.load(s, x, [0, 0])
pl.fillpad(d, s, mode=pl.FillPadMode.{mode})
pl.store(z, d, [0, 0])
"""
    p = f"x: pl.Tensor[[8, 8], pl.DT_INT32], z: pl.Tensor[{list(out_shape)}, pl.DT_INT32]"
    want = np.full(out_shape, np.iinfo(np.int32).min, np.int32)
    want[:5, :7] = x[:5, :7]
    np.testing.assert_array_equal(run(vec_kernel(p, body, tiles), x=x)["z"], want)


def test_gather_scatter_and_gathermask_follow_flat_indices():
    src = RNG.standard_normal((4, 16)).astype(np.float32)
    perm = RNG.permutation(64).astype(np.int32).reshape(4, 16)
    tiles = "\n".join([vtile("s", (4, 16), "DT_FP32", 0), vtile("i", (4, 16), "DT_INT32", 0x100),
                       vtile("t", (4, 16), "DT_INT32", 0x200), vtile("g", (4, 16), "DT_FP32", 0x300),
                       vtile("c", (4, 16), "DT_FP32", 0x400), vtile("m", (4, 4), "DT_FP32", 0x500)])
    body = """
pl.load(s, x, [0, 0])
pl.load(i, idx, [0, 0])
pl.gather(g, s, i, t)
pl.store(gathered, g, [0, 0])
pl.full(c, 0.0)
pl.scatter(c, s, i)
pl.store(scattered, c, [0, 0])
pl.gathermask(m, s, pattern_mode=6)
pl.store(picked, m, [0, 0])
"""
    p = ("x: pl.Tensor[[4, 16], pl.DT_FP32], idx: pl.Tensor[[4, 16], pl.DT_INT32], "
         "gathered: pl.Tensor[[4, 16], pl.DT_FP32], scattered: pl.Tensor[[4, 16], pl.DT_FP32], "
         "picked: pl.Tensor[[4, 4], pl.DT_FP32]")
    got = run(vec_kernel(p, body, tiles), x=src, idx=perm)
    np.testing.assert_array_equal(got["gathered"], src.reshape(-1)[perm])
    want = np.zeros(64, np.float32)
    want[perm.reshape(-1)] = src.reshape(-1)
    np.testing.assert_array_equal(got["scattered"], want.reshape(4, 16))
    np.testing.assert_array_equal(got["picked"], src[:, 3::4])


def test_argmax_argmin_and_histogram():
    x = RNG.standard_normal((4, 16)).astype(np.float32)
    u = RNG.integers(0, 1 << 16, (2, 32)).astype(np.uint16)
    tiles = "\n".join([vtile("s", (4, 16), "DT_FP32", 0), vtile("t", (4, 16), "DT_FP32", 0x100),
                       vtile("r", (4, 1), "DT_INT32", 0x200, layout="pl.DN"), vtile("c", (1, 16), "DT_INT32", 0x300),
                       vtile("h", (2, 32), "DT_UINT16", 0x400), vtile("hist", (2, 256), "DT_UINT32", 0x800),
                       vtile("hi", (2, 1), "DT_UINT8", 0x1000, layout="pl.DN")])
    body = """
pl.load(s, x, [0, 0])
pl.argmax(r, s, t, dim=0)
pl.argmin(c, s, t, dim=1)
pl.store(rows, r, [0, 0])
pl.store(cols, c, [0, 0])
pl.load(h, words, [0, 0])
pl.histogram(hist, h, hi, is_msb=True)
pl.store(counts, hist, [0, 0])
"""
    p = ("x: pl.Tensor[[4, 16], pl.DT_FP32], rows: pl.Tensor[[4, 1], pl.DT_INT32], "
         "cols: pl.Tensor[[1, 16], pl.DT_INT32], words: pl.Tensor[[2, 32], pl.DT_UINT16], "
         "counts: pl.Tensor[[2, 256], pl.DT_UINT32]")
    got = run(vec_kernel(p, body, tiles), x=x, words=u)
    np.testing.assert_array_equal(got["rows"][:, 0], x.argmax(axis=1))
    np.testing.assert_array_equal(got["cols"][0], x.argmin(axis=0))
    for r in range(2):
        np.testing.assert_array_equal(got["counts"][r], np.bincount(u[r] >> 8, minlength=256))


def test_quant_and_dequant_round_trip_per_row_scales():
    x = RNG.standard_normal((4, 32)).astype(np.float32) * 3
    scale = np.array([[10.0], [20.0], [30.0], [40.0]], np.float32)
    tiles = "\n".join([vtile("s", (4, 32), "DT_FP32", 0), vtile("k", (4, 1), "DT_FP32", 0x200, layout="pl.DN"),
                       vtile("z", (4, 1), "DT_FP32", 0x300, layout="pl.DN"), vtile("q", (4, 32), "DT_INT8", 0x400),
                       vtile("d", (4, 32), "DT_FP32", 0x600), vtile("inv", (4, 1), "DT_FP32", 0x800, layout="pl.DN")])
    body = """
pl.load(s, x, [0, 0])
pl.load(k, sc, [0, 0])
pl.load(inv, inv_sc, [0, 0])
pl.full(z, 0.0)
pl.quant(q, s, k)
pl.store(qo, q, [0, 0])
pl.dequant(d, q, inv, z)
pl.store(back, d, [0, 0])
"""
    p = ("x: pl.Tensor[[4, 32], pl.DT_FP32], sc: pl.Tensor[[4, 1], pl.DT_FP32], inv_sc: pl.Tensor[[4, 1], pl.DT_FP32], "
         "qo: pl.Tensor[[4, 32], pl.DT_INT8], back: pl.Tensor[[4, 32], pl.DT_FP32]")
    got = run(vec_kernel(p, body, tiles), x=x, sc=scale, inv_sc=(1 / scale).astype(np.float32))
    want_q = np.clip(np.rint(x * scale), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(got["qo"], want_q)
    np.testing.assert_allclose(got["back"], want_q.astype(np.float32) * (1 / scale).astype(np.float32), rtol=1e-6)


def test_sort32_orders_each_group_highest_first_with_indices():
    x = RNG.standard_normal((1, 64)).astype(np.float32)
    tiles = "\n".join([vtile("s", (1, 64), "DT_FP32", 0), vtile("i", (1, 64), "DT_UINT32", 0x100),
                       vtile("d", (1, 128), "DT_FP32", 0x200)])
    body = """
pl.load(s, x, [0, 0])
pl.fill_index(ii, 0)
pl.sort32(d, s, i)
pl.store(out, d, [0, 0])
"""
    tiles += "\n" + vtile("ii", (1, 64), "DT_INT32", 0x100)
    p = "x: pl.Tensor[[1, 64], pl.DT_FP32], out: pl.Tensor[[1, 128], pl.DT_FP32]"
    got = run(vec_kernel(p, body, tiles), x=x)["out"].reshape(-1, 2)
    for g in (0, 32):
        order = np.argsort(-x[0, g:g + 32], kind="stable")
        np.testing.assert_array_equal(got[g:g + 32, 0], x[0, g:g + 32][order])
        np.testing.assert_array_equal(got[g:g + 32, 1].view(np.uint32), order + g)


def test_printf_and_assert_write_the_log_and_trap_stops():
    src = vec_kernel("n: pl.DT_INT32", """
pl.printf("n=%d half=%.2f\\n", n, n / 2)
pl.pto_assert(n < 3, "n=%d", n)
""", "")
    res = run_kernel(source=src, kernel_name="k", inputs={"n": 5})
    assert res.log == ["b0.AIV: n=5 half=2.50", "b0.AIV: Assertion failed: n < 3\nn=5"]
    from sim_runtime import KernelError
    with pytest.raises(KernelError, match="trap"):
        run_kernel(source=vec_kernel("n: pl.DT_INT32", "pl.trap()", ""), kernel_name="k", inputs={"n": 1})


@pytest.mark.parametrize("synced", [False, True])
def test_dump_data_of_a_gm_tensor_written_by_scalars_needs_an_s_to_v_sync(synced):
    """Scalar writes are pipe S, dump_data pipe V: on one vector core, only a sync orders them."""
    sync = ("pl.system.sync_src(set_pipe=pl.PipeType.S, wait_pipe=pl.PipeType.V, event_id=0)\n"
            "pl.system.sync_dst(set_pipe=pl.PipeType.S, wait_pipe=pl.PipeType.V, event_id=0)\n") if synced else ""
    src = vec_kernel("t: pl.Tensor[[8], pl.DT_INT32]", "for i in pl.range(0, 8):\n    t[i] = i * 3\n" + sync
                     + "pl.dump_data(t)\n", "")
    if not synced:
        from sim_runtime import RaceError
        with pytest.raises(RaceError, match="pipe S: pl.setval"):
            run_kernel(source=src, kernel_name="k", inputs={"t": np.zeros(8, np.int32)})
        return
    res = run_kernel(source=src, kernel_name="k", inputs={"t": np.zeros(8, np.int32)})
    assert len(res.cores) == 1 and res.log[0].split()[-8:] == [str(3 * i) for i in range(8)]


# -- register ops ------------------------------------------------------------------------------

VF = """
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf


@pl.vector_function
def body(x, y, o):
    m = vf.create_mask(pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    a = vf.load_align(x, 0)
    b = vf.load_align(y, 0)
    {code}
    vf.store_align(o, r, m)


@pl.jit
def k(a: pl.Tensor[[1, 64], pl.DT_FP32], b: pl.Tensor[[1, 64], pl.DT_FP32], out: pl.Tensor[[1, 64], pl.DT_FP32]):
    tt = pl.TileType(shape=[1, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    x = pl.make_tile_group(type=tt, addrs=0x0, mutex_ids=[0]).current()
    y = pl.make_tile_group(type=tt, addrs=0x100, mutex_ids=[1]).current()
    o = pl.make_tile_group(type=tt, addrs=0x200, mutex_ids=[2]).current()
    with pl.section_vector():
        pl.load(x, a, [0, 0])
        pl.load(y, b, [0, 0])
        body(x, y, o)
        pl.store(out, o, [0, 0])
"""


def vf_run(code: str, a, b):
    return run_kernel(source=VF.replace("{code}", code), kernel_name="k", inputs={"a": a, "b": b}).outputs["out"][0]


@pytest.mark.parametrize(("code", "fn"), [
    ("r = vf.abs_sub(a, b, m)", lambda a, b: np.abs(a - b)),
    ("r = vf.prelu(a, b, m)", lambda a, b: np.where(a >= 0, a, a * b)),
    ("r = vf.maxs(a, 0.5, m)", lambda a, b: np.maximum(a, np.float32(0.5))),
    ("r = vf.select(a, b, vf.ge(a, b, m))", np.maximum),
    ("r = b\n    r = vf.mul_add_dst(a, a, m)", lambda a, b: a * a + b),
    ("r = vf.full(vf.reduce_max(a, m), m)", lambda a, b: np.full(64, a.max(), np.float32)),
    ("r = vf.squeeze(a, vf.gt(a, b, m))", lambda a, b: np.concatenate([a[a > b], np.zeros((a <= b).sum())])),
    ("r = vf.truncate(vf.muls(a, 4.0, m), m)", lambda a, b: np.trunc(a * 4)),
])
def test_register_ops_against_numpy(code, fn):
    a, b = RNG.standard_normal(64).astype(np.float32), RNG.standard_normal(64).astype(np.float32)
    np.testing.assert_allclose(vf_run(code, a[None], b[None]), fn(a, b).astype(np.float32), rtol=1e-6)


def test_reduce_sum_keeps_lane_zero_only():
    a = RNG.standard_normal(64).astype(np.float32)
    got = vf_run("r = vf.reduce_sum(a, m)", a[None], a[None])
    assert got[1:].tolist() == [0.0] * 63
    assert got[0] == pytest.approx(float(a.sum()), rel=1e-5)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-1e4, 1e4, width=32), min_size=64, max_size=64),
       st.lists(st.floats(-1e4, 1e4, width=32), min_size=64, max_size=64))
def test_lanewise_arithmetic_is_float32_arithmetic(xs, ys):
    a, b = np.array(xs, np.float32), np.array(ys, np.float32)
    np.testing.assert_array_equal(vf_run("r = vf.sub(vf.mul(a, b, m), vf.abs(b, m), m)", a[None], b[None]),
                                  (a * b) - np.abs(b))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-2 ** 15, 2 ** 15 - 1), min_size=16, max_size=16),
       st.lists(st.integers(1, 2 ** 15 - 1), min_size=16, max_size=16))
def test_block_arithmetic_matches_numpy_for_int32_tiles(xs, ys):
    x, y = np.array(xs, np.int32).reshape(1, 16), np.array(ys, np.int32).reshape(1, 16)
    tiles = "\n".join(vtile(n, (1, 16), "DT_INT32", i * 0x100) for i, n in enumerate(("tx", "ty", "to")))
    body = """
pl.load(tx, a, [0, 0])
pl.load(ty, b, [0, 0])
pl.addc(to, tx, ty, ty)
pl.mul_add_dst(to, tx, ty)
pl.store(out, to, [0, 0])
"""
    p = ", ".join(f"{n}: pl.Tensor[[1, 16], pl.DT_INT32]" for n in ("a", "b", "out"))
    want = (x + 2 * y + x * y).astype(np.int32)
    np.testing.assert_array_equal(run(vec_kernel(p, body, tiles), a=x, b=y)["out"], want)


# -- kernel-file constructs ------------------------------------------------------------------------

def test_unequal_blocks_run_independently_in_the_serial_reference():
    src = HEAD + """
@pl.jit
def k(x: pl.Tensor[[pl.DYNAMIC, 16], pl.DT_FP32], out: pl.Tensor[[pl.DYNAMIC, 16], pl.DT_FP32], n: pl.DT_INT32):
    t = pl.make_tile_group(type=pl.TileType(shape=[1, 16], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                           addrs=0, mutex_ids=[0]).current()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    for i in pl.range(core_id, n, pl.get_block_num()):
        with pl.section_vector():
            pl.load(t, x, [i, 0])
            pl.adds(t, t, 1.0)
            pl.store(out, t, [i, 0])
        with pl.section_cube():
            pass
"""
    x = RNG.standard_normal((3, 16)).astype(np.float32)
    got = run_kernel(source=src, kernel_name="k", inputs={"x": x, "out": np.zeros_like(x), "n": 3}, block_dim=2,
                     mode="sequential").outputs["out"]
    np.testing.assert_array_equal(got, x + 1)


def test_gm_scalar_access_and_pointer_views():
    src = HEAD + """
@pl.jit
def k(s: pl.Tensor[[4], pl.DT_FP32], ws: pl.Ptr[pl.DT_FP32], out: pl.Tensor[[2, 8], pl.DT_FP32]):
    s[1] = s[0] * 2
    view = pl.make_tensor(pl.addptr(ws, 8), [2, 8], [16, 1])
    t = pl.make_tile_group(type=pl.TileType(shape=[2, 8], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                           addrs=0, mutex_ids=[0]).current()
    with pl.section_vector():
        pl.load(t, view, [0, 0])
        pl.store(out, t, [0, 0])
"""
    ws = np.arange(32, dtype=np.float32)
    got = run_kernel(source=src, kernel_name="k", inputs={"s": np.array([3, 0, 0, 0], np.float32), "ws": ws})
    assert got.outputs["s"][1] == 6
    np.testing.assert_array_equal(got.outputs["out"], np.stack([ws[8:16], ws[24:32]]))


def test_an_op_the_emulator_lacks_is_one_unsupported_verdict_naming_the_outputs():
    src = HEAD + """
@pl.jit
def k(x: pl.Tensor[[16, 16], pl.DT_FP32], out: pl.Tensor[[16, 16], pl.DT_FP32]):
    with pl.section_vector():
        pl.not_a_real_op(x)
"""
    report = verify(src, {"pipelined": src}, "k", path="k.py")
    assert [r.verdict for r in report.rows] == ["unsupported"]
    assert "pl.not_a_real_op" in report.rows[0].message and "k.py:6" in report.rows[0].message
    assert report.rows[0].message.endswith("not checked: x, out")
    assert not report.failed
