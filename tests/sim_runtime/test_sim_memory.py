"""Memory model: aliasing, cursors, Acc->Vec dual modes, declaration and GM checks, ops."""

import textwrap

import numpy as np
import pytest

from sim_runtime import KernelError, RaceError, UnsupportedOpError, run_kernel
from sim_runtime.tiles import TileGroup

pytestmark = pytest.mark.emulator

HEAD = "import pypto_pro.language as pl\n"


def run(src, inputs=None, name="k", **kw):
    return run_kernel("kernel.py", name, inputs or {}, source=HEAD + textwrap.dedent(src), **kw)


def line_of(src, text):
    return (HEAD + textwrap.dedent(src)).splitlines().index(
        next(line for line in (HEAD + textwrap.dedent(src)).splitlines() if text in line)) + 1


ALIAS = """
@pl.jit
def k(x: pl.Tensor[[16, 32], pl.DT_FP32], y: pl.Tensor[[32, 16], pl.DT_FP32], z: pl.Tensor[[16, 32], pl.DT_FP32]):
    with pl.section_vector():
        a = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                               addrs=0x100, mutex_ids=[0])
        b = pl.make_tile_group(type=pl.TileType(shape=[32, 16], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                               addrs=0x100, mutex_ids=[MUTEX_B])
        c = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                               addrs=0x100 + 16 * 32 * 4, mutex_ids=[2])
        pl.load(a[0], x, [0, 0])
        pl.store(y, b[0], [0, 0])
        pl.store(z, c[0], [0, 0])
"""


def test_two_tile_groups_at_one_address_alias():
    x = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    res = run(ALIAS.replace("MUTEX_B", "0"), {"x": x})
    assert np.array_equal(res.outputs["y"], x.reshape(32, 16))  # same bytes, other shape
    assert not res.outputs["z"].any()  # the next 2 KB are untouched


def test_aliasing_groups_with_different_mutex_ids_race():
    # a mutex protects an address: aliasing buffers with different ids are unordered pipes
    with pytest.raises(RaceError, match="pl.load.*\n.*pl.store|pl.store"):
        run(ALIAS.replace("MUTEX_B", "1"), {"x": np.ones((16, 32), np.float32)})


CURSOR = """
@pl.jit
def k(x: pl.Tensor[[24, 32], pl.DT_FP32], out: pl.Tensor[[40, 32], pl.DT_FP32]):
    g = pl.make_tile_group(type=pl.TileType(shape=[8, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                           addrs=0, mutex_ids=[0, 1, 2])
    with pl.section_cube():
        g.next()  # the cube's cursor moves; the vector cores' cursors must not
        g.next()
    with pl.section_vector():
        for i in pl.range(3):
            pl.load(g[i], x, [8 * i, 0])
        if pl.get_subblock_idx() == 0:
            pl.store(out, g.current(), [0, 0])
            pl.store(out, g.next(), [8, 0])
            pl.store(out, g.next(), [16, 0])
            pl.store(out, g.previous(), [24, 0])
            pl.store(out, g.current(), [32, 0])
"""


@pytest.mark.parametrize("mode", ["sequential", "concurrent"])
def test_cursor_semantics_per_core(mode):
    x = np.arange(24 * 32, dtype=np.float32).reshape(24, 32)
    out = run(CURSOR, {"x": x}, mode=mode).outputs["out"]
    blocks = [x[8 * s:8 * s + 8] for s in (2, 0, 1, 0, 1)]  # current before next() is slot depth-1
    assert np.array_equal(out, np.concatenate(blocks))


def test_cursor_unit_rules():
    g = TileGroup(["s0", "s1", "s2"], "g")
    assert g.current() == "s2" and g.previous() == "s1"
    assert [g.next(), g.next(), g.next(), g.next()] == ["s0", "s1", "s2", "s0"]
    assert g.cursor == 6  # starts at depth-1, never wrapped when stored
    assert g.previous() == "s2" and g.cursor == 6
    assert g[1] == "s1" and g.cursor == 6
    with pytest.raises(KernelError):
        g[3]
    one = TileGroup(["only"], "one")
    assert one.next() == one.current() == one.previous() == one[0] == "only"


DUAL = """
M = 32

@pl.jit
def k(a: pl.Tensor[[M, M], pl.DT_FP32], eye: pl.Tensor[[M, M], pl.DT_FP32], out: pl.Tensor[[2 * M, M], pl.DT_FP32]):
    vec = pl.make_tile_group(type=pl.TileType(shape=[VR, VC], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                             addrs=0, mutex_ids=[0])
    with pl.section_cube():
        a_l1 = pl.make_tile_group(type=pl.TileType(shape=[M, M], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
                                  addrs=0, mutex_ids=[1])
        e_l1 = pl.make_tile_group(type=pl.TileType(shape=[M, M], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
                                  addrs=0x4000, mutex_ids=[2])
        left = pl.make_tile_group(type=pl.TileType(shape=[M, M], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left),
                                  addrs=0, mutex_ids=[3])
        right = pl.make_tile_group(type=pl.TileType(shape=[M, M], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right),
                                   addrs=0, mutex_ids=[4])
        acc = pl.make_tile_group(type=pl.TileType(shape=[M, M], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
                                 addrs=0, mutex_ids=[5])
        pl.load(a_l1[0], a, [0, 0])
        pl.load(e_l1[0], eye, [0, 0])
        pl.move(left[0], a_l1[0])
        pl.move(right[0], e_l1[0])
        pl.matmul(acc[0], left[0], right[0])
        pl.move(vec[0], acc[0], acc_to_vec_mode=pl.AccToVecMode.MODE)
        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)
    with pl.section_vector():
        s = pl.get_subblock_idx()
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, vec[0], [s * M, 0])
"""


@pytest.mark.parametrize("mode,shape", [
    ("DualModeSplitM", (16, 32)), ("DualModeSplitN", (32, 16)),
    ("SingleModeVec0", (32, 32)), ("SingleModeVec1", (32, 32)),
])
def test_acc_to_vec_modes(mode, shape):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((32, 32)).astype(np.float32)
    src = DUAL.replace("MODE", mode).replace("VR", str(shape[0])).replace("VC", str(shape[1]))
    out = run(src, {"a": a, "eye": np.eye(32, dtype=np.float32)}).outputs["out"]
    want = np.zeros((64, 32), np.float32)
    if mode == "DualModeSplitM":
        want[0:16], want[32:48] = a[0:16], a[16:32]
    elif mode == "DualModeSplitN":
        want[0:32, 0:16], want[32:64, 0:16] = a[:, 0:16], a[:, 16:32]
    elif mode == "SingleModeVec0":
        want[0:32] = a
    else:
        want[32:64] = a
    assert np.array_equal(out, want)


def test_acc_to_vec_without_sync_races():
    src = DUAL.replace("MODE", "DualModeSplitM").replace("VR", "16").replace("VC", "32")
    src = src.replace("        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=0)\n", "")
    src = src.replace("        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)\n", "")
    with pytest.raises(RaceError, match="UB b0.AIV"):
        run(src, {"a": np.ones((32, 32), np.float32), "eye": np.eye(32, dtype=np.float32)})


VEC = """
@pl.jit
def k(x: pl.Tensor[[16, 32], pl.DT_FP32], out: pl.Tensor[[16, 32], pl.DT_FP32]):
    with pl.section_vector():
        t = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                               addrs=ADDR, mutex_ids=[0])
        u = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                               addrs=0x8000, mutex_ids=[0])
        pl.load(t[0], x, OFFSETS)
        BODY
        pl.store(out, u[0], [0, 0])
"""


def vec(body="pl.muls(u[0], t[0], 2.0)", addr="0", offsets="[0, 0]"):
    return VEC.replace("ADDR", addr).replace("OFFSETS", offsets).replace("BODY", body)


@pytest.mark.parametrize("body,fn", [
    ("pl.muls(u[0], t[0], 2.0)", lambda x: x * 2),
    ("pl.add(u[0], t[0], t[0])", lambda x: x + x),
    ("pl.adds(u[0], t[0], 1.5)", lambda x: x + np.float32(1.5)),
    ("pl.exp(u[0], t[0])", np.exp),
    ("pl.relu(u[0], t[0])", lambda x: np.maximum(x, 0)),
    ("pl.abs(u[0], t[0])", np.abs),
    ("pl.maximum(u[0], t[0], 0.25)", lambda x: np.maximum(x, np.float32(0.25))),
    ("pl.full(u[0], 3.0)", lambda x: np.full_like(x, 3)),
    ("pl.row_expand(u[0], t[0])", lambda x: np.broadcast_to(x[:, :1], x.shape)),
    ("pl.col_expand_sub(u[0], t[0], t[0])", lambda x: x - x[:1, :]),
])
def test_vector_ops(body, fn):
    x = np.random.default_rng(2).standard_normal((16, 32)).astype(np.float32)
    out = run(vec(body), {"x": x}).outputs["out"]
    np.testing.assert_allclose(out, fn(x), rtol=1e-6)


def test_row_reduction_and_expand():
    x = np.random.default_rng(3).standard_normal((16, 32)).astype(np.float32)
    body = """r = pl.make_tile(pl.TileType(shape=[16, 1], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                                            layout=pl.DN), addr=0x4000)
        pl.row_max(r, t[0], t[0])
        pl.system.bar_all()
        pl.row_expand_sub(u[0], t[0], r)"""
    out = run(vec(body), {"x": x}).outputs["out"]
    np.testing.assert_allclose(out, x - x.max(axis=1, keepdims=True), rtol=1e-6)


def test_valid_shape_limits_the_window():
    x = np.ones((16, 32), np.float32)
    out = run(vec("pl.set_validshape(u, [4, 8])\n        pl.muls(u[0], t[0], 2.0)"), {"x": x}).outputs["out"]
    assert np.array_equal(out[:4, :8], np.full((4, 8), 2, np.float32))
    assert not out[4:].any() and not out[:, 8:].any()


@pytest.mark.parametrize("valid_shape", ["[16]", "[16, 32, 1]"])
def test_valid_shape_of_other_than_two_entries_is_an_error_at_declaration(valid_shape):
    src = vec().replace("MemorySpace.Vec)", f"MemorySpace.Vec, valid_shape={valid_shape})", 1)
    with pytest.raises(KernelError, match="valid_shape must be 2 entries"):
        run(src, {"x": np.ones((16, 32), np.float32)})


def test_misaligned_tile_is_an_error_at_declaration():
    src = vec(addr="0x10")
    with pytest.raises(KernelError, match="not 32-byte aligned") as err:
        run(src, {"x": np.ones((16, 32), np.float32)})
    assert f"kernel.py:{line_of(src, 't = pl.make_tile_group')}" in str(err.value)


def test_tile_past_capacity_is_an_error_at_declaration():
    with pytest.raises(KernelError, match="exceeds Vec capacity"):
        run(vec(addr=str(248 * 1024 - 1024)), {"x": np.ones((16, 32), np.float32)})


def test_gm_out_of_bounds_names_tensor_offsets_and_shapes():
    src = vec(offsets="[8, 0]")
    with pytest.raises(KernelError) as err:
        run(src, {"x": np.ones((16, 32), np.float32)})
    msg = str(err.value)
    assert "'x'" in msg and "[16, 32]" in msg and "[8, 0]" in msg
    assert f"kernel.py:{line_of(src, 'pl.load(')}" in msg


def test_unsupported_op_names_op_and_line():
    src = vec("pl.matmul_mx(u[0], t[0])")
    with pytest.raises(UnsupportedOpError) as err:
        run(src, {"x": np.ones((16, 32), np.float32)})
    assert "pl.matmul_mx" in str(err.value)
    assert f"kernel.py:{line_of(src, 'pl.matmul_mx')}" in str(err.value)


def test_vector_core_cannot_touch_cube_memory():
    body = """m = pl.make_tile(pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
                         addr=0)
        pl.relu(m, t[0])"""
    with pytest.raises(KernelError, match="cannot access"):
        run(vec(body), {"x": np.ones((16, 32), np.float32)})


def test_fp16_cast_rounds_like_numpy():
    x = np.random.default_rng(4).standard_normal((16, 32)).astype(np.float32)
    body = """h = pl.make_tile(pl.TileType(shape=[16, 32], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec),
                         addr=0x4000)
        pl.cast(h, t[0], mode=pl.RoundMode.CAST_RINT)
        pl.system.bar_all()
        pl.cast(u[0], h)"""
    out = run(vec(body), {"x": x}).outputs["out"]
    assert np.array_equal(out, x.astype(np.float16).astype(np.float32))


def test_tuple_of_tiles_indexed_by_a_counter():
    # FlashAttention keeps per-query state in rings of three make_tile tiles, picked by `n % 3`
    src = """
    @pl.jit
    def k(x: pl.Tensor[[8, 32], pl.DT_FP32], out: pl.Tensor[[24, 32], pl.DT_FP32]):
        with pl.section_vector():
            t = pl.TileType(shape=[8, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
            ring = (pl.make_tile(t, addr=0), pl.make_tile(t, addr=0x400), pl.make_tile(t, addr=0x800))
            if pl.get_subblock_idx() == 0:
                for n in pl.range(3):
                    pl.load(ring[n % 3], x, [0, 0])
                pl.system.bar_all()
                for n in pl.range(1, 5):
                    pl.adds(ring[n % 3], ring[n % 3], 1.0)
                pl.system.bar_all()
                for n in pl.range(3):
                    pl.store(out, ring[n], [8 * n, 0])
    """
    x = np.zeros((8, 32), np.float32)
    out = run(src, {"x": x}).outputs["out"]
    assert [float(out[8 * n, 0]) for n in range(3)] == [1.0, 2.0, 1.0]  # n = 1, 2, 3, 4 -> slots 1, 2, 0, 1


def test_a_kernel_without_sections_runs_once_per_block_on_a_vector_core():
    # no section_cube: compiled aiv-only, so the scalar copy runs on one AIV, not on three cores
    src = """
    @pl.jit(auto_mutex=True)
    def k(params: pl.Tensor[[4], pl.DT_FP32]):
        first = params[0]
        params[3] = first
    """
    params = np.array([2.5, 0.0, 0.0, 0.0], dtype=np.float32)
    result = run(src, {"params": params})
    assert result.outputs["params"].tolist() == [2.5, 0.0, 0.0, 2.5]
    assert list(result.cores) == ["b0.AIV"]


@pytest.mark.parametrize("dtype", ["DT_FP8E4M3FN", "DT_FP8E5M2", "DT_HF8"])
def test_eight_bit_float_tiles_move_as_their_codes(dtype):
    # load / move / store of one dtype move bytes: every 8-bit code comes back unchanged
    src = f"""
    @pl.jit
    def k(x: pl.Tensor[[32, 64], pl.{dtype}], out: pl.Tensor[[32, 64], pl.{dtype}]):
        with pl.section_vector():
            t = pl.make_tile_group(type=pl.TileType(shape=[32, 64], dtype=pl.{dtype},
                                   target_memory=pl.MemorySpace.Vec), addrs=0, mutex_ids=[0])
            u = pl.make_tile_group(type=pl.TileType(shape=[32, 64], dtype=pl.{dtype},
                                   target_memory=pl.MemorySpace.Vec), addrs=0x1000, mutex_ids=[1])
            pl.load(t[0], x, [0, 0])
            pl.move(u[0], t[0])
            pl.store(out, u[0], [0, 0])
    """
    codes = np.random.default_rng(5).integers(0, 256, size=(32, 64), dtype=np.uint8)
    out = run(src, {"x": codes}).outputs["out"]
    assert out.dtype == np.uint8 and np.array_equal(out, codes)


def test_an_eight_bit_float_tile_takes_no_arithmetic():
    src = """
    @pl.jit
    def k(x: pl.Tensor[[32, 64], pl.DT_FP8E4M3FN], out: pl.Tensor[[32, 64], pl.DT_FP8E4M3FN]):
        with pl.section_vector():
            t = pl.make_tile_group(type=pl.TileType(shape=[32, 64], dtype=pl.DT_FP8E4M3FN,
                                   target_memory=pl.MemorySpace.Vec), addrs=0, mutex_ids=[0])
            pl.load(t[0], x, [0, 0])
            pl.muls(t[0], t[0], 2.0)
            pl.store(out, t[0], [0, 0])
    """
    with pytest.raises(UnsupportedOpError, match="muls on DT_FP8E4M3FN tiles"):
        run(src, {"x": np.zeros((32, 64), dtype=np.uint8)})
