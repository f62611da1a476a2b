"""The 8- and 4-bit float codecs and the `vf.astype` casts that use them, against a reference
written from the format definitions: values from the code's bit string in exact fractions,
encoding by brute-force search over those values (nearest with the tie rule, or the
neighbour a directed mode asks for), never by rounding on a grid as the emulator does.
"""

import math
import re
import textwrap
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim_runtime import KernelError, UnsupportedOpError, assumed, minifloat, run_kernel
from sim_runtime.vf import SMALL_FLOAT_CASTS

pytestmark = pytest.mark.emulator

ROOT = Path(__file__).resolve().parent.parent.parent

#: name -> (exponent bits, mantissa bits, bias, NaN codes, infinity codes): the public definitions.
SPEC = {
    "DT_FP8E4M3FN": (4, 3, 7, {0x7F, 0xFF}, {}),
    "DT_FP8E5M2": (5, 2, 15, {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}, {0x7C: 1, 0xFC: -1}),
    "DT_FP4E2M1": (2, 1, 1, set(), {}),
    "DT_FP4E1M2": (1, 2, 1, set(), {}),
}
SIGNED = list(SPEC)
FP8 = ["DT_FP8E4M3FN", "DT_FP8E5M2"]
FP4 = ["DT_FP4E2M1", "DT_FP4E1M2"]
FP4_MODES = ["CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC"]


def ref_value(code: int, name: str) -> float:
    """The value of `code` read off its bit string (sign, exponent, mantissa)."""
    e_bits, m_bits, bias, nans, infs = SPEC[name]
    if code in nans:
        return math.nan
    if code in infs:
        return math.inf * infs[code]
    s = format(code, f"0{1 + e_bits + m_bits}b")
    e, m = int(s[1:1 + e_bits], 2), int(s[1 + e_bits:], 2)
    mag = Fraction(m, 2 ** m_bits) * Fraction(2) ** (1 - bias) if e == 0 else \
        (1 + Fraction(m, 2 ** m_bits)) * Fraction(2) ** (e - bias)
    return -float(mag) if s[0] == "1" else float(mag)  # -0.0 for the negative zero code


REF = {name: np.array([ref_value(c, name) for c in range(1 << (1 + sum(SPEC[name][:2])))]) for name in SPEC}


def ref_encode(x: np.ndarray, name: str, mode: str = "CAST_RINT", saturate: bool = False) -> np.ndarray:
    """Brute force: among the finite codes of x's sign, the one `mode` picks; beyond the range
    the largest finite (FP4, saturation, a directed mode towards zero) or the overflow code."""
    table = REF[name]
    nbits = int(math.log2(table.size))
    signbit = 1 << (nbits - 1)
    codes = np.arange(table.size)
    x = np.asarray(x, np.float64)
    out = np.zeros(x.shape, np.int64)
    for neg in (False, True):
        sel = np.signbit(x) == neg
        cc = codes[(((codes & signbit) != 0) == neg) & np.isfinite(table)]
        vv, xs = table[cc], x[sel]
        top = cc[np.argmax(np.abs(vv))]
        with np.errstate(invalid="ignore"):
            d = np.abs(xs[:, None] - vv[None, :])
            if mode in ("CAST_RINT", "CAST_ROUND"):
                tie = d == d.min(axis=1, keepdims=True)
                prefer = (cc % 2 == 0) if mode == "CAST_RINT" else np.abs(vv)
                pick = np.argmax(np.where(tie, prefer[None, :] + 1, 0), axis=1)
            else:
                ok = {"CAST_FLOOR": vv[None, :] <= xs[:, None], "CAST_CEIL": vv[None, :] >= xs[:, None],
                      "CAST_TRUNC": np.abs(vv)[None, :] <= np.abs(xs)[:, None]}[mode]
                # the allowed candidate nearest to x: the largest (FLOOR), smallest (CEIL), or
                # largest in magnitude (TRUNC); -0 and +0 never compete (one sign at a time)
                key = {"CAST_FLOOR": vv, "CAST_CEIL": -vv, "CAST_TRUNC": np.abs(vv)}[mode]
                pick = np.argmax(np.where(ok, key[None, :], -np.inf), axis=1)
                pick = np.where(ok.any(axis=1), pick, np.argmax(np.abs(vv)))  # none: saturate
        got = cc[pick]
        # overflow: beyond the largest finite value by at least half its spacing (a tie goes
        # to the odd neighbour above only when the largest has an odd last bit)
        second = np.sort(np.abs(vv))[-2]
        big = abs(table[top])
        half = (big - second) / 2
        a = np.abs(xs)
        if mode in ("CAST_RINT", "CAST_ROUND"):
            beyond = (a > big + half) | ((a == big + half) & ((top % 2 == 1) or mode == "CAST_ROUND"))
        else:
            away = {"CAST_FLOOR": neg, "CAST_CEIL": not neg, "CAST_TRUNC": False}[mode]
            beyond = (a > big) & away
        beyond |= np.isinf(xs)
        if name in FP8 and not saturate:
            over = {"DT_FP8E4M3FN": 0x7F, "DT_FP8E5M2": 0x7C}[name] | (signbit if neg else 0)
            got = np.where(beyond, over, got)
        else:
            got = np.where(beyond, top, got)
        nan_code = 0 if saturate or name in FP4 else assumed.FP8_NAN_CODE[name] | (signbit if neg else 0)
        out[sel] = np.where(np.isnan(xs), nan_code, got)
    return out.astype(np.uint8)


ALL_FP16 = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float64)
with np.errstate(invalid="ignore"):  # the signalling NaN patterns
    ALL_BF16 = (np.arange(1 << 16, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)


# -- the codecs --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SIGNED)
def test_decode_table_matches_the_bit_string_reading(name):
    got = minifloat.decode(np.arange(REF[name].size), name)
    assert np.array_equal(got, REF[name].astype(np.float32), equal_nan=True)


def test_documented_anchor_values():
    """Largest and smallest values of the public definitions, and the docs' FP4 examples."""
    top = {n: np.nanmax(np.where(np.isinf(t), np.nan, t)) for n, t in REF.items()}
    assert top == {"DT_FP8E4M3FN": 448, "DT_FP8E5M2": 57344, "DT_FP4E2M1": 6, "DT_FP4E1M2": 1.75}
    assert REF["DT_FP8E4M3FN"][1] == 2.0 ** -9 and REF["DT_FP8E5M2"][1] == 2.0 ** -16
    assert list(minifloat.decode(np.arange(8), "DT_FP4E2M1")) == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    assert minifloat.decode(np.array([4]), "DT_FP4E1M2")[0] == 1.0
    e8 = minifloat.decode(np.arange(256), "DT_FP8E8M0")
    assert [float(v) for v in e8[:255]] == [2.0 ** (e - 127) for e in range(255)] and np.isnan(e8[255])


@pytest.mark.parametrize("name", SIGNED)
@pytest.mark.parametrize("mode", FP4_MODES)
def test_every_code_round_trips(name, mode):
    codes = np.arange(REF[name].size)
    finite = np.isfinite(REF[name])
    back = minifloat.encode(minifloat.decode(codes, name), name, mode)
    assert np.array_equal(back[finite], codes[finite])
    assert np.isnan(minifloat.decode(back[~finite & np.isnan(REF[name])], name)).all()


@pytest.mark.parametrize("name", FP8)
@pytest.mark.parametrize("saturate", [False, True])
def test_every_fp16_value_encodes_as_brute_force_nearest_even(name, saturate):
    got = minifloat.encode(ALL_FP16, name, "CAST_RINT", saturate)
    want = np.concatenate([ref_encode(c, name, "CAST_RINT", saturate) for c in np.split(ALL_FP16, 8)])
    bad = np.flatnonzero(got != want)
    assert not bad.size, f"{ALL_FP16[bad[:5]]}: {got[bad[:5]]} != {want[bad[:5]]}"


@pytest.mark.parametrize("name", FP4)
@pytest.mark.parametrize("mode", FP4_MODES)
def test_every_bf16_value_encodes_to_fp4_as_brute_force(name, mode):
    got = minifloat.encode(ALL_BF16, name, mode)
    want = np.concatenate([ref_encode(c, name, mode) for c in np.split(ALL_BF16, 8)])
    bad = np.flatnonzero(got != want)
    assert not bad.size, f"{ALL_BF16[bad[:5]]}: {got[bad[:5]]} != {want[bad[:5]]}"


def test_every_bf16_value_encodes_to_e8m0_as_the_largest_power_of_two_not_above():
    table = minifloat.decode(np.arange(255), "DT_FP8E8M0").astype(np.float64)
    a = np.abs(ALL_BF16)
    want = np.searchsorted(table, a, side="right") - 1  # largest code whose value <= |x|
    want = np.where(a < table[0], 0, want)
    want = np.where(np.isinf(a), 0xFE, np.where(np.isnan(a), 0xFF, want))
    assert np.array_equal(minifloat.encode(ALL_BF16, "DT_FP8E8M0"), want)


def test_boundaries():
    """Largest value, the half-way point above it, overflow, smallest subnormal, NaN."""
    e4, e5 = "DT_FP8E4M3FN", "DT_FP8E5M2"

    def dec(values, name, saturate=False):
        return minifloat.decode(minifloat.encode(np.array(values, np.float64), name, saturate=saturate), name)

    assert list(dec([448, 464, -464], e4)) == [448, 448, -448]  # 464: tie, 448 has the even mantissa
    assert np.isnan(dec([465, np.inf, -np.inf, np.nan], e4)).all()  # no infinity: NaN
    assert list(dec([465, np.inf, -np.inf, np.nan], e4, saturate=True)) == [448, 448, -448, 0]
    assert list(dec([57344, 61439, 61440, -np.inf], e5)) == [57344, 57344, np.inf, -np.inf]
    assert list(dec([61440, np.inf, np.nan], e5, saturate=True)) == [57344, 57344, 0]
    assert list(dec([2.0 ** -9, 2.0 ** -10, 1.5 * 2.0 ** -10], e4)) == [2.0 ** -9, 0, 2.0 ** -9]
    assert list(dec([2.0 ** -16, 2.0 ** -17, 3 * 2.0 ** -17], e5)) == [2.0 ** -16, 0, 2.0 ** -15]
    assert list(dec([7, -1e30, np.inf, np.nan], "DT_FP4E2M1")) == [6, -6, 6, 0]
    assert minifloat.encode(np.array([-0.0]), "DT_FP4E1M2")[0] == 0x8


def test_fp4_pairs_pack_first_element_in_the_low_bits():
    codes = np.arange(16, dtype=np.uint8)
    packed = minifloat.pack4(codes)
    assert list(packed) == [codes[2 * k] + 16 * codes[2 * k + 1] for k in range(8)]
    assert np.array_equal(minifloat.unpack4(packed), codes)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(width=32), min_size=1, max_size=64), st.sampled_from(SIGNED),
       st.sampled_from(FP4_MODES), st.booleans())
def test_random_floats_encode_as_brute_force(values, name, mode, saturate):
    x = np.array(values, np.float64)
    mode = mode if name in FP4 else "CAST_RINT"
    assert np.array_equal(minifloat.encode(x, name, mode, saturate), ref_encode(x, name, mode, saturate))


# -- vf.astype in a kernel -----------------------------------------------------------------------

def cast_kernel(src: str, dst: str, wide: str, pattern="ALL", **kw) -> str:
    """Bytes in, one register of `src` loaded, cast to `dst` with `kw`, stored, bytes out; the
    cast's mask is `pattern` at the wide type's lanes."""
    args = "".join(f", {k}=pl.{v}" for k, v in kw.items())
    return textwrap.dedent(f"""\
        import pypto_pro.language as pl
        from pypto_pro.language import Vf as vf

        @pl.vector_function
        def f(src, dst):
            p = vf.create_mask(pattern=pl.MaskPattern.{pattern}, dtype=pl.{wide})
            r = vf.load_align(src, dtype=pl.{src})
            h = vf.astype(r, p, dtype=pl.{dst}{args})
            vf.store_align(dst, h, vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_UINT8))

        @pl.jit
        def k(x: pl.Tensor[[1, 256], pl.DT_UINT8], out: pl.Tensor[[1, 256], pl.DT_UINT8]):
            t = pl.TileType(shape=[1, 256], dtype=pl.DT_UINT8, target_memory=pl.MemorySpace.Vec)
            a = pl.make_tile_group(type=t, addrs=0, mutex_ids=[0])
            b = pl.make_tile_group(type=t, addrs=0x10000, mutex_ids=[1])
            with pl.section_vector():
                pl.load(a[0], x, [0, 0])
                f(a[0], b[0])
                pl.store(out, b[0], [0, 0])
        """)


def cast(data: np.ndarray, *args, **kw) -> np.ndarray:
    src = cast_kernel(*args, **kw)
    return run_kernel("castk.py", "k", {"x": data.view(np.uint8).reshape(1, 256)}, source=src).outputs["out"][0]


LAYOUTS = ["ZERO", "ONE", "TWO", "THREE"]
RNG = np.random.default_rng(21)


@pytest.mark.parametrize("name", FP8)
@pytest.mark.parametrize("part", range(4))
def test_fp32_to_fp8_puts_lane_i_in_byte_4i_plus_part_under_the_mask(name, part):
    x = (RNG.standard_normal(64) * 300).astype(np.float32)
    x[:3] = [np.nan, np.inf, 1e6]
    out = cast(x, "DT_FP32", name, "DT_FP32", "H", layout=f"CastLayout.{LAYOUTS[part]}",
               saturate="SaturateMode.ON")
    want = np.zeros(256, np.uint8)
    want[part::4] = np.where(np.arange(64) < 32, ref_encode(x, name, saturate=True), 0)
    assert np.array_equal(out, want)


@pytest.mark.parametrize("name", FP8)
@pytest.mark.parametrize("part", range(4))
def test_fp8_to_fp32_reads_byte_4i_plus_part(name, part):
    data = RNG.integers(0, 256, 256, dtype=np.uint8)
    out = cast(data, name, "DT_FP32", "DT_FP32", "VL32", layout=f"CastLayout.{LAYOUTS[part]}").view(np.float32)
    want = np.where(np.arange(64) < 32, REF[name][data[part::4]], 0).astype(np.float32)
    assert np.array_equal(out, want, equal_nan=True)


def bf16(values: np.ndarray) -> np.ndarray:
    """bf16 bit patterns of float32 values (truncation: exact values only are passed)."""
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)


@pytest.mark.parametrize("name", FP4)
@pytest.mark.parametrize("part", range(4))
@pytest.mark.parametrize("mode", FP4_MODES)
def test_bf16_to_fp4_packs_lane_pairs_into_byte_4k_plus_part(name, part, mode):
    bits = RNG.integers(0, 1 << 16, 128, dtype=np.uint16)
    bits[:4] = bf16([7.0, -0.3, np.nan, -np.inf])
    with np.errstate(invalid="ignore"):
        x = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    out = cast(bits, "DT_BF16", name, "DT_BF16", "M3", layout=f"CastLayout.{LAYOUTS[part]}",
               round_mode=f"VFRoundMode.{mode}")
    codes = ref_encode(x, name, mode).astype(np.uint8)
    pair = codes[0::2] | (codes[1::2] << 4)
    even_lane_on = np.arange(0, 128, 2) % 3 == 0  # M3: every third bf16 lane; a pair follows its even lane
    want = np.zeros(256, np.uint8)
    want[part::4] = np.where(even_lane_on, pair, 0)
    assert np.array_equal(out, want)


@pytest.mark.parametrize("name", FP4)
@pytest.mark.parametrize("part", range(4))
def test_fp4_to_bf16_unpacks_byte_4k_plus_part_low_bits_first(name, part):
    data = RNG.integers(0, 256, 256, dtype=np.uint8)
    out = cast(data, name, "DT_BF16", "DT_BF16", "M3", layout=f"CastLayout.{LAYOUTS[part]}").view(np.uint16)
    nibbles = np.stack([data[part::4] & 0xF, data[part::4] >> 4], axis=1).reshape(-1)
    want = np.where(np.arange(128) % 3 == 0, bf16(REF[name][nibbles]), 0)
    assert np.array_equal(out, want)


@pytest.mark.parametrize("part", range(2))
def test_bf16_e8m0_round_trip_through_even_or_odd_bytes(part):
    bits = RNG.integers(0, 1 << 16, 128, dtype=np.uint16)
    x = (bits.astype(np.uint32) << 16).view(np.float32)
    layout = f"CastLayout.{LAYOUTS[part]}"
    out = cast(bits, "DT_BF16", "DT_FP8E8M0", "DT_BF16", layout=layout)
    want = np.zeros(256, np.uint8)
    want[part::2] = np.where(np.isnan(x), 0xFF, np.where(np.isinf(x), 0xFE, (bits >> 7) & 0xFF))
    assert np.array_equal(out, want)
    back = cast(out, "DT_FP8E8M0", "DT_BF16", "DT_BF16", layout=layout).view(np.uint16)
    e = want[part::2].astype(np.float64)
    assert np.array_equal(back, bf16(np.where(e == 0xFF, np.nan, 2.0 ** (e - 127))))


def test_saturated_fp32_to_fp16_clips_and_zeroes_nan():
    x = np.array([1e6, -1e6, np.inf, np.nan] * 16, np.float32)
    out = cast(x, "DT_FP32", "DT_FP16", "DT_FP32", saturate="SaturateMode.ON").view(np.float16)
    assert list(out[0:8:2]) == [65504, -65504, 65504, 0]


@pytest.mark.parametrize("kw,why", [
    ({"round_mode": "VFRoundMode.CAST_FLOOR"}, "round_mode CAST_RINT"),
    ({"layout": "CastLayout.TWO", "dtype_": "DT_FP8E8M0"}, "CastLayout ZERO or ONE"),
])
def test_modes_and_layouts_the_reference_does_not_list_are_kernel_errors(kw, why):
    dst = kw.pop("dtype_", "DT_FP8E4M3FN")
    src = "DT_BF16" if dst == "DT_FP8E8M0" else "DT_FP32"
    with pytest.raises(KernelError, match=why):
        cast(np.zeros(64, np.float32), src, dst, src, **kw)


# -- the README's list --------------------------------------------------------------------------

#: The documented HiF8 paths (the other 8/4-bit float paths are vf.SMALL_FLOAT_CASTS).
HIF8_CASTS = [("DT_HF8", "DT_FP16"), ("DT_HF8", "DT_FP32"), ("DT_FP16", "DT_HF8"), ("DT_FP32", "DT_HF8")]


def readme_astype_entry() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("Not emulated", 1)[1].split("\n\n", 2)[1]
    entries = re.findall(r"^- (.*?)(?=^- |\Z)", section, flags=re.M | re.S)
    return next(e for e in entries if e.startswith("`vf.astype` to or from"))


@pytest.mark.parametrize("path", sorted(SMALL_FLOAT_CASTS) + HIF8_CASTS)
def test_readme_names_exactly_the_small_float_casts_that_do_not_run(path):
    named = set(re.findall(r"`pl\.(DT_\w+)`", readme_astype_entry()))
    src, dst = path
    wide = src if minifloat.FORMATS.get(dst) or dst == "DT_HF8" else dst
    run = lambda: cast(np.zeros(256, np.uint8), src, dst, wide)  # noqa: E731
    if named & set(path):
        with pytest.raises(UnsupportedOpError):
            run()
    else:
        run()
