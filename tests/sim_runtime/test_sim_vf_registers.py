"""Register memory and lane ops (address registers, load/store distributions, masks in
memory, unaligned and counted access, scatter, pack, interleave, histograms, carries,
`muls_cast`, special registers, MERGING) against numpy written from the documented rules."""

import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim_runtime import KernelError, run_kernel

pytestmark = pytest.mark.emulator

HEAD = "import pypto_pro.language as pl\nfrom pypto_pro.language import Vf as vf\n"
RNG = np.random.default_rng(5)


def kernel(vfs: str, x_shape, x_dtype="DT_FP32", out_shape=None, out_dtype=None, prefill=False, before="") -> str:
    """x -> UB tile a; `body(a, b)`; b -> out (b first loaded from y with `prefill`)."""
    out_shape, out_dtype = out_shape or x_shape, out_dtype or x_dtype
    y = f", y: pl.Tensor[{list(out_shape)}, pl.{out_dtype}]" if prefill else ""
    lines = [
        f"a = pl.make_tile_group(type=pl.TileType(shape={list(x_shape)}, dtype=pl.{x_dtype}, "
        "target_memory=pl.MemorySpace.Vec), addrs=0, mutex_ids=[0])",
        f"b = pl.make_tile_group(type=pl.TileType(shape={list(out_shape)}, dtype=pl.{out_dtype}, "
        "target_memory=pl.MemorySpace.Vec), addrs=0x10000, mutex_ids=[1])",
        "pl.load(a[0], x, [0, 0])",
        *(["pl.load(b[0], y, [0, 0])"] if prefill else []),
        *([before] if before else []),
        "body(a[0], b[0])",
        "pl.store(out, b[0], [0, 0])",
    ]
    head = (f"@pl.jit\ndef k(x: pl.Tensor[{list(x_shape)}, pl.{x_dtype}], "
            f"out: pl.Tensor[{list(out_shape)}, pl.{out_dtype}]{y}):\n    with pl.section_vector():\n")
    return HEAD + textwrap.dedent(vfs) + "\n\n" + head + "".join(f"        {line}\n" for line in lines)


def run(src: str, **inputs):
    return run_kernel("vfr.py", "k", inputs, source=src)


def out_of(vfs: str, x, out_shape=None, out_dtype=None, y=None, dtype="DT_FP32", before=""):
    src = kernel(vfs, list(x.shape), dtype, out_shape, out_dtype, prefill=y is not None, before=before)
    return run(src, x=x, **({} if y is None else {"y": y})).outputs["out"]


# -- addressing -------------------------------------------------------------------------------

def test_address_registers_offset_loads_and_stores_by_index_times_stride():
    x = RNG.standard_normal((4, 64)).astype(np.float32)
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        for i in pl.range(0, 2):
            for j in pl.range(0, 2):
                ar = vf.create_addr_reg(i, 128, j, 64, dtype=pl.DT_FP32)
                back = vf.create_addr_reg(1 - i, 128, 1 - j, 64, dtype=pl.DT_FP32)
                r = vf.load_align(src, ar)
                vf.store_align(dst, r, p, back)
    """, x)
    np.testing.assert_array_equal(got, x[::-1])


def test_unaligned_loads_and_stores_copy_across_block_boundaries_and_the_tail_waits_for_post():
    x = RNG.standard_normal((1, 256)).astype(np.float32)
    y = np.full((1, 256), -1.0, np.float32)
    body = """
    @pl.vector_function
    def body(src, dst):
        u = vf.load_unalign_init()
        vf.load_unalign_pre(u, src + 3)
        s = vf.unalign_reg_for_store()
        for i in pl.range(0, 2):
            r = vf.load_unalign(u, src + 3, 64, post_update=True)
            vf.store_unalign(dst + 5, r, s, 64, post_update=True)
        POST
    """
    done = out_of(body.replace("POST", "vf.store_unalign_post(dst + 5, s, 0, post_update=True)"), x, y=y)
    want = y.copy()
    want[0, 5:133] = x[0, 3:131]
    np.testing.assert_array_equal(done, want)
    # 5 + 128 fp32 = byte 532: the 20 bytes past byte 512 stay in the register without the post
    cut = out_of(body.replace("POST", ""), x, y=y)
    want[0, 128:133] = -1.0
    np.testing.assert_array_equal(cut, want)


def test_counted_loads_and_stores_move_any_number_of_lanes_from_any_address():
    x = np.arange(128, dtype=np.float32).reshape(1, 128) + 1
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        for i in pl.range(0, 3):
            r = vf.load(src + 1, post_update=True, count=10)
            vf.store(dst + 2, r, count=12, post_update=True)
    """, x, y=np.zeros((1, 128), np.float32))
    want = np.zeros(128, np.float32)
    for i in range(3):  # 10 lanes read, 12 written: two zero lanes after each group
        want[2 + 12 * i:2 + 12 * i + 10] = x[0, 1 + 10 * i:11 + 10 * i]
    np.testing.assert_array_equal(got[0], want)


# -- distributions ------------------------------------------------------------------------------

def _dist_load(dist: str, x: np.ndarray, dtype: str, extra: str = "") -> np.ndarray:
    return out_of(f"""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.{dtype})
        r = vf.load_align(src, 0, dist=pl.LoadDist.{dist}{extra})
        vf.store_align(dst, r, p)
    """, x, out_shape=[1, 256 // x.itemsize], dtype=dtype)[0]


def test_load_distributions_place_elements_as_documented():
    h = RNG.integers(-1000, 1000, (1, 256)).astype(np.int16)
    np.testing.assert_array_equal(_dist_load("US", h, "DT_INT16"), np.repeat(h[0, :64], 2))
    np.testing.assert_array_equal(_dist_load("DS_B16", h, "DT_INT16"), h[0, 0:256:2])
    unpk = np.zeros(128, np.int16)
    unpk[0::2] = h[0, :64]
    np.testing.assert_array_equal(_dist_load("UNPK_B16", h, "DT_INT16"), unpk)
    np.testing.assert_array_equal(_dist_load("BLK", h, "DT_INT16"), np.tile(h[0, :16], 8))
    w = RNG.integers(0, 1 << 30, (1, 128)).astype(np.int32)
    np.testing.assert_array_equal(_dist_load("E2B", w, "DT_INT32"), np.repeat(w[0, :8], 8))
    b = RNG.integers(0, 255, (1, 256)).astype(np.uint8)
    quad = np.zeros(256, np.uint8)
    quad[0::4] = b[0, :64]
    np.testing.assert_array_equal(_dist_load("UNPK4", b, "DT_UINT8"), quad)


def test_deinterleaving_load_and_interleaving_store_round_trip():
    x = RNG.standard_normal((2, 64)).astype(np.float32)
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        even, odd = vf.load_align(src, 0, dist=pl.LoadDist.DINTLV_B32)
        vf.store_align(dst, even, p)
        vf.store_align(dst + 64, odd, p)
    """, x)
    flat = x.reshape(-1)
    np.testing.assert_array_equal(got.reshape(-1), np.concatenate([flat[0::2], flat[1::2]]))
    back = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        r0 = vf.load_align(src, 0)
        r1 = vf.load_align(src, 64)
        vf.store_align(dst, r0, r1, p, dist=pl.StoreDist.INTLV_B32)
    """, x)
    want = np.empty(128, np.float32)
    want[0::2], want[1::2] = x[0], x[1]
    np.testing.assert_array_equal(back.reshape(-1), want)


def test_pack_stores_keep_the_low_bits_of_active_lanes():
    w = RNG.integers(-(1 << 31), (1 << 31) - 1, (1, 64)).astype(np.int32)
    y = np.full((1, 128), 7, np.uint16)
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.VL32, dtype=pl.DT_INT32)
        r = vf.load_align(src, 0)
        vf.store_align(dst, r, p, dist=pl.StoreDist.PACK)
    """, w, out_shape=[1, 128], out_dtype="DT_UINT16", y=y, dtype="DT_INT32")
    want = y[0].copy()
    want[:32] = (w[0, :32].astype(np.int64) & 0xFFFF).astype(np.uint16)
    np.testing.assert_array_equal(got[0], want)


def test_masks_go_to_memory_bit_by_bit_and_come_back_upsampled():
    x = RNG.standard_normal((1, 64)).astype(np.float32)
    bits = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        r = vf.load_align(src, 0)
        m = vf.ge(r, 0.0, p)
        vf.store_align(dst, m)
    """, x, out_shape=[1, 32], out_dtype="DT_UINT8", y=np.zeros((1, 32), np.uint8))
    lanes = np.unpackbits(bits[0], bitorder="little").reshape(64, 4)
    np.testing.assert_array_equal(lanes, np.repeat((x[0] >= 0)[:, None], 4, axis=1).astype(np.uint8))
    # PACK drops every other bit (16 bytes); US repeats each again: the same fp32 lanes. `back`
    # holds a mask, so its load loads one; `r`, on the same line, loads data
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        r = vf.load_align(src, 0)
        m = vf.ge(r, 0.0, p)
        vf.store_align(dst, m, dist=pl.StoreDist.PACK)
        vf.mem_bar(mode=pl.MemBarMode.VST_VLD)
        back = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        back = vf.load_align(dst, dist=pl.LoadDist.US); r = vf.load_align(src, 0)  # each call its own target
        a = vf.abs(r, back)
        vf.store_align(dst, a, p)
    """, x)
    np.testing.assert_array_equal(got[0], np.where(x[0] >= 0, np.abs(x[0]), 0))


def test_scatter_puts_each_active_lane_at_its_index():
    x = RNG.standard_normal((1, 64)).astype(np.float32)
    perm = RNG.permutation(64).astype(np.uint32)
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.VL32, dtype=pl.DT_FP32)
        r = vf.load_align(src, 0)
        i = vf.load_align(src, 64, dtype=pl.DT_UINT32)
        vf.scatter(dst, r, i, p)
    """, np.concatenate([x, perm.view(np.float32)[None]], axis=1), out_shape=[1, 64],
        y=np.zeros((1, 64), np.float32))
    want = np.zeros(64, np.float32)
    want[perm[:32]] = x[0, :32]
    np.testing.assert_array_equal(got[0], want)


# -- lane ops -----------------------------------------------------------------------------------

def test_pack_narrows_into_the_chosen_half_and_interleave_alternates_lanes():
    w = RNG.integers(0, 1 << 32, (1, 128), dtype=np.uint64).astype(np.uint32)
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_UINT32)
        r0 = vf.load_align(src, 0)
        r1 = vf.load_align(src, 64)
        lo = vf.pack(r0, dtype=pl.DT_UINT16, part=pl.PackPart.LOWER)
        hi = vf.pack(r1, dtype=pl.DT_UINT16, part=pl.PackPart.UPPER)
        both = vf.or_(lo, hi, vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_UINT16))
        i0, i1 = vf.interleave(r0, r1)
        vf.store_align(dst, vf.bit_cast(both, dtype=pl.DT_UINT32), p)
        vf.store_align(dst, i0, p, 64)
        vf.store_align(dst, i1, p, 128)
    """, w, out_shape=[1, 192], dtype="DT_UINT32")
    halves = (w[0] & 0xFFFF).astype(np.uint16)
    np.testing.assert_array_equal(got[0, :64].view(np.uint16), halves)
    inter = np.empty(128, np.uint32)
    inter[0::2], inter[1::2] = w[0, :64], w[0, 64:]
    np.testing.assert_array_equal(got[0, 64:], inter)


@pytest.mark.parametrize("hist,binning", [("FREQUENCY", "BIN0"), ("ACCUMULATE", "BIN1")])
def test_histograms_add_counts_of_active_bytes_to_the_target(hist, binning):
    b = RNG.integers(0, 256, (1, 256)).astype(np.uint8)
    got = out_of(f"""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.VL128, dtype=pl.DT_UINT8)
        all16 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_UINT16)
        r = vf.load_align(src, 0)
        h = vf.full(3, all16, dtype=pl.DT_UINT16)
        h = vf.histograms(r, p, bin_type=pl.BinType.{binning}, hist_type=pl.HistType.{hist})
        vf.store_align(dst, h, all16)
    """, b, out_shape=[1, 128], out_dtype="DT_UINT16", dtype="DT_UINT8")
    base = 128 if binning == "BIN1" else 0
    counts = np.array([np.sum(b[0, :128] == base + n) for n in range(128)])
    if hist == "ACCUMULATE":
        counts = np.array([counts[:n + 1].sum() for n in range(128)])
    np.testing.assert_array_equal(got[0], counts + 3)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(0, (1 << 32) - 1), min_size=128, max_size=128))
def test_add_and_sub_with_carry_chain_two_words_into_64_bit_arithmetic(words):
    w = np.array(words, np.uint32).reshape(1, 128)
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_UINT32)
        none = vf.create_mask(pattern=pl.MaskPattern.ALLF, dtype=pl.DT_UINT32)
        a = vf.load_align(src, 0)
        b = vf.load_align(src, 64)
        c, s = vf.addc(a, b, none, p)
        c2, s2 = vf.addc(a, a, c, p)
        d, t = vf.subc(a, b, none, p)
        vf.store_align(dst, s, p)
        vf.store_align(dst, s2, p, 64)
        vf.store_align(dst, t, p, 128)
    """, w, out_shape=[1, 192], dtype="DT_UINT32")
    a, b = w[0, :64].astype(object), w[0, 64:].astype(object)
    m = 1 << 32
    carry = [int(x + y >= m) for x, y in zip(a, b, strict=True)]
    np.testing.assert_array_equal(got[0, :64], [(x + y) % m for x, y in zip(a, b, strict=True)])
    np.testing.assert_array_equal(got[0, 64:128], [(2 * x + c) % m for x, c in zip(a, carry, strict=True)])
    np.testing.assert_array_equal(got[0, 128:], [(x - y) % m for x, y in zip(a, b, strict=True)])


def _fp16_round_half_away(v: float) -> np.float16:
    near = np.float16(v)
    if float(near) == v or not np.isfinite(near):
        return near
    other = np.nextafter(near, np.float16(np.inf if float(near) < v else -np.inf))
    if abs(float(other) - v) == abs(float(near) - v):  # a tie: the one farther from zero
        return other if abs(float(other)) > abs(float(near)) else near
    return near


def test_muls_cast_rounds_the_product_to_fp16_in_the_chosen_lanes():
    x = (RNG.standard_normal((1, 64)) * 100).astype(np.float32)
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        r = vf.load_align(src, 0)
        h = vf.muls_cast(r, 0.37, p, dtype=pl.DT_FP16, layout=pl.CastLayout.ONE)
        vf.store_align(dst, vf.bit_cast(h, dtype=pl.DT_FP32), p)
    """, x)[0].view(np.float16)
    want = [_fp16_round_half_away(float(np.float32(v * np.float32(0.37)))) for v in x[0]]
    np.testing.assert_array_equal(got[1::2], np.array(want, np.float16))
    assert not got[0::2].any()


def test_merging_keeps_the_targets_inactive_lanes():
    x = RNG.standard_normal((1, 64)).astype(np.float32)
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        some = vf.create_mask(pattern=pl.MaskPattern.VL16, dtype=pl.DT_FP32)
        r = vf.load_align(src, 0)
        acc = vf.full(9.0, p, dtype=pl.DT_FP32)
        acc = vf.add(r, r, some, mode=pl.MergeMode.MERGING)
        vf.store_align(dst, acc, p)
    """, x)
    np.testing.assert_array_equal(got[0], np.concatenate([2 * x[0, :16], np.full(48, 9.0, np.float32)]))


def test_merging_without_a_target_register_is_an_error():
    with pytest.raises(KernelError, match="MERGING"):
        out_of("""
        @pl.vector_function
        def body(src, dst):
            p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
            r = vf.load_align(src, 0)
            vf.store_align(dst, vf.add(r, r, p, mode=pl.MergeMode.MERGING), p)
        """, RNG.standard_normal((1, 64)).astype(np.float32))


def test_mask_from_register_bits_and_from_the_vector_mask_register():
    w = RNG.integers(0, 1 << 32, (1, 64), dtype=np.uint64).astype(np.uint32)
    got = out_of("""
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_UINT32)
        r = vf.load_align(src, 0)
        m = vf.mask_gen_with_reg_tensor(r, 3)
        s = vf.get_mask_spr(width=pl.MaskWidth.B32)
        vf.store_align(dst, vf.move(r, m), p)
        vf.store_align(dst, vf.move(r, s), p, 64)
    """, w, out_shape=[1, 128], dtype="DT_UINT32", before="pl.set_vec_mask(0, 0xF0F0)")
    block = np.unpackbits(w[0, 6:8].view(np.uint8), bitorder="little").astype(bool)  # block 3: bytes 24..32
    np.testing.assert_array_equal(got[0, :64], np.where(block, w[0], 0))
    spr = np.array([(0xF0F0 >> i) & 1 for i in range(64)], bool)
    np.testing.assert_array_equal(got[0, 64:], np.where(spr, w[0], 0))


def test_get_spr_reads_the_bytes_the_last_squeeze_counted():
    x = RNG.standard_normal((1, 64)).astype(np.float32)
    vfs = """
    @pl.vector_function
    def body(src, dst):
        p = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
        r = vf.load_align(src, 0)
        m = vf.gt(r, 0.0, p)
        q = vf.squeeze(r, m, gather_mode=pl.SqueezeMode.STORE_REG)
        CLEAR
        vf.store_align(dst, q, p)
    """
    src = kernel(vfs, [1, 64]).replace("        pl.store(out, b[0], [0, 0])\n",
                                       "        n = pl.get_spr()\n        pl.setval(b[0], 0, n)\n"
                                       "        pl.store(out, b[0], [0, 0])\n")
    got = run(src.replace("CLEAR", ""), x=x).outputs["out"]
    assert got[0, 0] == 4 * int(np.sum(x[0] > 0))
    np.testing.assert_array_equal(got[0, 1:int(np.sum(x[0] > 0))], x[0][x[0] > 0][1:])
    cleared = run(src.replace("CLEAR", "vf.clear_spr()"), x=x).outputs["out"]
    assert cleared[0, 0] == 0
