"""Masks as operands of the logic, select, interleave and unaligned-store ops; the gather
forms (element, DataBlock, register); `vf.exp_sub(..., dtype=)` and `vf.arange` counting
down. Expectations are numpy written from the documented behaviour: a mask has one bit per
register byte, a lane of w bytes is active when its lowest bit is set, logic ops on masks
work bit by bit and clear the bits the predicate does not select."""

import textwrap

import numpy as np
import pytest

from sim_runtime import KernelError, run_kernel

pytestmark = pytest.mark.emulator

HEAD = "import pypto_pro.language as pl\nfrom pypto_pro.language import Vf as vf\n"
RNG = np.random.default_rng(21)


def run(vfs: str, call: str, inputs: dict, out: np.ndarray, prefill: bool = False) -> np.ndarray:
    """Each input array goes to a UB tile of its own (named after it), `out` to tile `o`
    (first loaded from GM `y` with `prefill`); `call` runs the vector function; `o` is
    stored back and returned."""
    params, body = [], []
    tensors = dict(inputs, **({"y": out} if prefill else {}))
    for k, (name, arr) in enumerate(tensors.items()):
        dt = f"pl.{_dtype(arr)}"
        params.append(f"{name}: pl.Tensor[{list(arr.shape)}, {dt}]")
        tile = "o" if name == "y" else name + "_t"
        body.append(f"{tile} = pl.make_tile_group(type=pl.TileType(shape={list(arr.shape)}, dtype={dt}, "
                    f"target_memory=pl.MemorySpace.Vec), addrs={0x4000 * k}, mutex_ids=[{k}])")
        body.append(f"pl.load({tile}[0], {name}, [0, 0])")
    if not prefill:
        body.append(f"o = pl.make_tile_group(type=pl.TileType(shape={list(out.shape)}, dtype=pl.{_dtype(out)}, "
                    "target_memory=pl.MemorySpace.Vec), addrs=0x20000, mutex_ids=[9])")
    body += [call, "pl.store(out, o[0], [0, 0])"]
    params.append(f"out: pl.Tensor[{list(out.shape)}, pl.{_dtype(out)}]")
    src = (HEAD + textwrap.dedent(vfs) + f"\n\n@pl.jit\ndef k({', '.join(params)}):\n    with pl.section_vector():\n"
           + "".join(f"        {line}\n" for line in body))
    return run_kernel("vfm.py", "k", tensors, source=src).outputs["out"]


def _dtype(a: np.ndarray) -> str:
    return {"float32": "DT_FP32", "float16": "DT_FP16", "int8": "DT_INT8", "uint8": "DT_UINT8", "int16": "DT_INT16",
            "uint16": "DT_UINT16", "int32": "DT_INT32", "uint32": "DT_UINT32"}[a.dtype.name]


def lanes_of(bits: np.ndarray, width: int) -> np.ndarray:
    """The lanes of `width` bytes a 256-bit mask activates (a lane reads its lowest bit)."""
    return bits[0::width]


# -- logic ops on masks ---------------------------------------------------------------------

LOGIC = """
@pl.vector_function
def f(src, dst):
    p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    q = vf.create_mask(pattern=pl.MaskPattern.VL32, dtype=pl.DT_FP32)
    a = vf.load_align(src)
    b = vf.load_align(src, 64)
    ma = vf.gt(a, 0.0, p)
    mb = vf.gt(b, 0.0, p)
    m = OP
    r = vf.abs(a, m)
    vf.store_align(dst, r, p)
"""


@pytest.mark.parametrize(("op", "fn"), [
    ("vf.and_(ma, mb, q)", np.logical_and),
    ("vf.or_(ma, mb, q)", np.logical_or),
    ("vf.xor(ma, mb, q)", np.logical_xor),
    ("vf.not_(ma, q)", lambda a, b: ~a),
])
def test_logic_ops_combine_masks_and_clear_what_the_predicate_leaves_out(op, fn):
    x = RNG.standard_normal((2, 64)).astype(np.float32)
    got = run(LOGIC.replace("OP", op), "f(x_t[0], o[0])", {"x": x}, np.zeros((1, 64), np.float32))
    on = fn(x[0] > 0, x[1] > 0) & (np.arange(64) < 32)
    np.testing.assert_array_equal(got[0], np.where(on, np.abs(x[0]), 0))


def test_mask_logic_works_on_single_bits_whatever_granularity_made_the_masks():
    vfs = """
    @pl.vector_function
    def f(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        every_bit = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_UINT8)
        ma = vf.create_mask(pattern=pl.MaskPattern.VL16, dtype=pl.DT_UINT8)
        mb = vf.create_mask(pattern=pl.MaskPattern.M3, dtype=pl.DT_FP16)
        m = vf.xor(ma, mb, every_bit)
        a = vf.load_align(src)
        vf.store_align(dst, vf.abs(a, m), p)
    """
    x = RNG.standard_normal((1, 64)).astype(np.float32)
    got = run(vfs, "f(x_t[0], o[0])", {"x": x}, np.zeros((1, 64), np.float32))
    bits_a = np.arange(256) < 16                    # b8: one bit per lane
    bits_b = np.repeat(np.arange(128) % 3 == 0, 2)  # b16: two bits per lane
    on = lanes_of(bits_a ^ bits_b, 4)
    np.testing.assert_array_equal(got[0], np.where(on, np.abs(x[0]), 0))


def test_logic_ops_on_float_registers_work_on_the_encoding():
    vfs = """
    @pl.vector_function
    def f(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.VL32, dtype=pl.DT_FP32)
        a = vf.load_align(src)
        b = vf.load_align(src, 64)
        vf.store_align(dst, vf.and_(a, b, p), p)
        vf.store_align(dst + 64, vf.not_(a, p), p)
    """
    x = RNG.standard_normal((2, 64)).astype(np.float32)
    got = run(vfs, "f(x_t[0], o[0])", {"x": x}, np.zeros((2, 64), np.float32), prefill=True)
    u = x.view(np.uint32)
    on = np.arange(64) < 32
    np.testing.assert_array_equal(got[0].view(np.uint32), np.where(on, u[0] & u[1], 0))
    np.testing.assert_array_equal(got[1].view(np.uint32), np.where(on, ~u[0], 0))


def test_logic_op_rejects_a_mask_mixed_with_a_register():
    vfs = """
    @pl.vector_function
    def f(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        a = vf.load_align(src)
        vf.store_align(dst, vf.and_(a, p, p), p)
    """
    with pytest.raises(KernelError, match="all masks or all registers"):
        run(vfs, "f(x_t[0], o[0])", {"x": np.zeros((1, 64), np.float32)}, np.zeros((1, 64), np.float32))


def test_select_of_masks_takes_each_bit_from_the_first_where_the_predicate_is_set():
    vfs = """
    @pl.vector_function
    def f(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        a = vf.load_align(src)
        b = vf.load_align(src, 64)
        c = vf.load_align(src, 128)
        m = vf.select(vf.gt(a, 0.0, p), vf.gt(b, 0.0, p), vf.gt(c, 0.0, p))
        vf.store_align(dst, vf.abs(a, m), p)
    """
    x = RNG.standard_normal((3, 64)).astype(np.float32)
    got = run(vfs, "f(x_t[0], o[0])", {"x": x}, np.zeros((1, 64), np.float32))
    on = np.where(x[2] > 0, x[0] > 0, x[1] > 0)
    np.testing.assert_array_equal(got[0], np.where(on, np.abs(x[0]), 0))


# -- interleaving masks ------------------------------------------------------------------------

def test_interleave_and_de_interleave_of_masks_move_lanes_of_the_given_width():
    vfs = """
    @pl.vector_function
    def f(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        a = vf.load_align(src)
        b = vf.load_align(src, 64)
        ma = vf.gt(a, 0.0, p)
        mb = vf.gt(b, 0.0, p)
        i0, i1 = vf.interleave(ma, mb, dtype=pl.DT_FP32)
        d0, d1 = vf.de_interleave(ma, mb, dtype=pl.DT_FP32)
        r0, r1 = vf.de_interleave(i0, i1, dtype=pl.DT_FP32)
        vf.store_align(dst, vf.abs(a, i0), p)
        vf.store_align(dst + 64, vf.abs(a, i1), p)
        vf.store_align(dst + 128, vf.abs(a, d0), p)
        vf.store_align(dst + 192, vf.abs(a, d1), p)
        vf.store_align(dst + 256, vf.abs(a, r0), p)
        vf.store_align(dst + 320, vf.abs(b, r1), p)
    """
    x = RNG.standard_normal((2, 64)).astype(np.float32)
    got = run(vfs, "f(x_t[0], o[0])", {"x": x}, np.zeros((6, 64), np.float32))
    pa, pb = x[0] > 0, x[1] > 0
    inter = np.empty(128, bool)
    inter[0::2], inter[1::2] = pa, pb               # dst0[2i] = src0[i], dst0[2i+1] = src1[i]
    joined = np.concatenate([pa, pb])               # dst0[i] = src[2i], dst1[i] = src[2i+1]
    want = [inter[:64], inter[64:], joined[0::2], joined[1::2], pa, pb]
    for row, on in enumerate(want):
        src = x[1] if row == 5 else x[0]
        np.testing.assert_array_equal(got[row], np.where(on, np.abs(src), 0), err_msg=f"row {row}")


def test_mask_interleave_then_de_interleave_gives_the_masks_back_at_the_default_width():
    vfs = """
    @pl.vector_function
    def f(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        a = vf.load_align(src)
        ma = vf.gt(a, 0.0, p)
        m3 = vf.create_mask(pattern=pl.MaskPattern.M3, dtype=pl.DT_FP32)
        i0, i1 = vf.interleave(ma, m3)
        r0, r1 = vf.de_interleave(i0, i1)
        vf.store_align(dst, vf.abs(a, r0), p)
        vf.store_align(dst + 64, vf.abs(a, r1), p)
    """
    x = RNG.standard_normal((1, 64)).astype(np.float32)
    got = run(vfs, "f(x_t[0], o[0])", {"x": x}, np.zeros((2, 64), np.float32))
    np.testing.assert_array_equal(got[0], np.where(x[0] > 0, np.abs(x[0]), 0))
    np.testing.assert_array_equal(got[1], np.where(np.arange(64) % 3 == 0, np.abs(x[0]), 0))


# -- unaligned store of a mask -----------------------------------------------------------------

@pytest.mark.parametrize(("np_dtype", "dt"), [(np.float32, "DT_FP32"), (np.float16, "DT_FP16")])
def test_store_unalign_of_a_mask_packs_one_bit_per_lane_of_the_tile_width(np_dtype, dt):
    lanes = 256 // np.dtype(np_dtype).itemsize
    vfs = f"""
    @pl.vector_function
    def f(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.{dt})
        a = vf.load_align(src)
        b = vf.load_align(src, {lanes})
        u = vf.unalign_reg_for_store()
        vf.store_unalign(dst, vf.gt(a, 0.0, p), u, post_update=True)
        vf.store_unalign(dst, vf.gt(b, 0.0, p), u, post_update=True)
        vf.store_unalign_post(dst, u)
    """
    x = RNG.standard_normal((2, lanes)).astype(np_dtype)
    y = np.full((1, lanes), 7, np_dtype)
    got = run(vfs, "f(x_t[0], o[0])", {"x": x}, y, prefill=True).view(np.uint8).reshape(-1)
    # lane i of each compare is bit i mod 8 of byte i // 8 of its packed bytes; the two
    # packed masks follow each other, the rest of the tile keeps its bytes
    want = y.view(np.uint8).reshape(-1).copy()
    packed = [np.packbits((row > 0).astype(np.uint8), bitorder="little") for row in x]
    n = lanes // 8
    want[:n], want[n:2 * n] = packed[0], packed[1]
    np.testing.assert_array_equal(got, want)


# -- gather -----------------------------------------------------------------------------------

def test_gather_data_block_load_fills_each_32_byte_block_from_a_byte_offset():
    vfs = """
    @pl.vector_function
    def f(src, idx, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.VL32, dtype=pl.DT_FP32)
        ones = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        i = vf.load_align(idx)
        r = vf.gather(src, i, p, data_copy_mode=pl.DataCopyMode.DATA_BLOCK_LOAD)
        vf.store_align(dst, r, ones)
    """
    x = RNG.standard_normal((1, 256)).astype(np.float32)            # 32 blocks of 8 fp32
    blocks = RNG.integers(0, 32, 8)
    idx = np.concatenate([blocks * 32, RNG.integers(0, 1 << 30, 56)]).astype(np.uint32).reshape(1, 64)
    got = run(vfs, "f(x_t[0], i_t[0], o[0])", {"x": x, "i": idx}, np.zeros((1, 64), np.float32))
    want = x.reshape(32, 8)[blocks].reshape(-1)
    np.testing.assert_array_equal(got[0], np.where(np.arange(64) < 32, want, 0))


def test_gather_data_block_load_rejects_an_offset_off_a_block_boundary():
    vfs = """
    @pl.vector_function
    def f(src, idx, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        r = vf.gather(src, vf.load_align(idx), p, data_copy_mode=pl.DataCopyMode.DATA_BLOCK_LOAD)
        vf.store_align(dst, r, p)
    """
    idx = np.full((1, 64), 32, np.uint32)
    idx[0, 3] = 36
    with pytest.raises(KernelError, match="not a multiple of 32"):
        run(vfs, "f(x_t[0], i_t[0], o[0])", {"x": np.zeros((1, 256), np.float32), "i": idx},
            np.zeros((1, 64), np.float32))


def test_gather_from_a_register_wraps_indices_to_its_lane_count():
    vfs = """
    @pl.vector_function
    def f(src, idx, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_INT16)
        r = vf.gather(vf.load_align(src), vf.load_align(idx))
        vf.store_align(dst, r, p)
    """
    x = RNG.integers(-30000, 30000, (1, 128)).astype(np.int16)
    idx = RNG.integers(0, 65536, (1, 128)).astype(np.uint16)
    got = run(vfs, "f(x_t[0], i_t[0], o[0])", {"x": x, "i": idx}, np.zeros((1, 128), np.int16))
    np.testing.assert_array_equal(got[0], x[0][idx[0] % 128])


def test_gather_of_bytes_zero_extends_them_into_16_bit_lanes_stored_with_norm_b16():
    vfs = """
    @pl.vector_function
    def f(src, idx, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.VL64, dtype=pl.DT_INT16)
        r = vf.gather(src, vf.load_align(idx), p)
        vf.store_align(dst, r, p, dist=pl.StoreDist.NORM_B16)
    """
    x = RNG.integers(-128, 128, (1, 256)).astype(np.int8)
    idx = RNG.integers(0, 256, (1, 128)).astype(np.uint16)
    y = np.full((1, 128), -1, np.int16)
    got = run(vfs, "f(x_t[0], i_t[0], o[0])", {"x": x, "i": idx}, y, prefill=True)
    want = np.where(np.arange(128) < 64, x[0].view(np.uint8)[idx[0]].astype(np.int16), -1)
    np.testing.assert_array_equal(got[0], want)


def test_gather_of_halves_by_32_bit_indices_fills_the_even_lanes():
    vfs = """
    @pl.vector_function
    def f(src, idx, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP16)
        r = vf.gather(src, vf.load_align(idx), p)
        vf.store_align(dst, r, p, dist=pl.StoreDist.NORM_B16)
    """
    x = RNG.standard_normal((1, 128)).astype(np.float16)
    idx = RNG.integers(0, 128, (1, 64)).astype(np.uint32)
    got = run(vfs, "f(x_t[0], i_t[0], o[0])", {"x": x, "i": idx}, np.full((1, 128), 5, np.float16), prefill=True)
    want = np.zeros(128, np.float16)
    want[0::2] = x[0][idx[0]]
    np.testing.assert_array_equal(got[0], want)


def test_data_copy_mode_has_the_documented_members():
    from sim_runtime import pl

    assert [m.name for m in pl.DataCopyMode] == ["NORM", "DATA_BLOCK_LOAD", "DATA_BLOCK_COPY"]


# -- exp_sub to fp32, arange downwards ---------------------------------------------------------

def test_exp_sub_with_dtype_fp32_widens_fp16_sources():
    vfs = """
    @pl.vector_function
    def f(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP16)
        q = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        a = vf.load_align(src)
        b = vf.load_align(src, 128)
        vf.store_align(dst, vf.exp_sub(a, b, p, dtype=pl.DT_FP32), q)
    """
    x = RNG.standard_normal((2, 128)).astype(np.float16)
    got = run(vfs, "f(x_t[0], o[0])", {"x": x}, np.zeros((1, 64), np.float32))
    want = np.exp(x[0, 0::2].astype(np.float32) - x[1, 0::2].astype(np.float32))
    np.testing.assert_allclose(got[0], want, rtol=1e-6)


@pytest.mark.parametrize(("np_dtype", "dt"), [(np.int32, "DT_INT32"), (np.uint16, "DT_UINT16")])
def test_arange_decrease_order_gives_the_increasing_values_in_reverse_lane_order(np_dtype, dt):
    start = int(RNG.integers(0, 40000))
    lanes = 256 // np.dtype(np_dtype).itemsize
    vfs = f"""
    @pl.vector_function
    def f(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.{dt})
        vf.store_align(dst, vf.arange({start}, index_order=pl.IndexOrder.DECREASE_ORDER, dtype=pl.{dt}), p)
    """
    got = run(vfs, "f(x_t[0], o[0])", {"x": np.zeros((1, 8), np.float32)}, np.zeros((1, lanes), np_dtype))
    # the documented example: 64 DT_UINT32 lanes from 63 count down from 126 to 63
    want = (start + lanes - 1 - np.arange(lanes, dtype=np.int64)) % (1 << (8 * np.dtype(np_dtype).itemsize))
    np.testing.assert_array_equal(got[0].astype(np.int64) % (1 << (8 * np.dtype(np_dtype).itemsize)), want)
