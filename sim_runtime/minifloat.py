"""The 8- and 4-bit float formats `vf.astype` converts to and from, as exact numpy codecs.

Public formats, one code per byte (FP4 codes 0..15):

* FP8 E4M3FN (OCP): bias 7, no infinities, 0x7F/0xFF NaN, max 448.
* FP8 E5M2: bias 15, IEEE-like (exponent 31: infinity or NaN), max 57344.
* FP8 E8M0: an exponent alone, 2^(e - 127), no sign, no zero, 0xFF NaN (the MX scale).
* FP4 E2M1: bias 1, max 6, no infinity or NaN. FP4 E1M2: bias 1, max 1.75 (code 4 is 1.0).

Decoding looks a code up in the table of all 256 (16) values. Encoding rounds on the
format's grid (the spacing of the binade the value falls in, the subnormal spacing below
the smallest normal) in float64, where inputs of at most 24 significant bits are exact,
and looks the rounded magnitude up in the same table. Two FP4 values share a byte, the
first in the low 4 bits (as MXFP4 data is packed in GM).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim_runtime import assumed
from sim_runtime.errors import UnsupportedOpError


@dataclass(frozen=True)
class Format:
    """A small float format: field widths, bias, and the codes that are not numbers."""

    exp_bits: int
    man_bits: int
    bias: int
    signed: bool = True
    #: code -> value for the codes the plain formula does not give (infinities, NaNs)
    specials: dict[int, float] = field(default_factory=dict)
    #: the code an overflow gives without saturation (None: the format saturates always)
    overflow: int | None = None
    #: the (positive) code of NaN (None: the format has no NaN and NaN gives 0)
    nan: int | None = None

    @property
    def bits(self) -> int:
        return int(self.signed) + self.exp_bits + self.man_bits

    @property
    def subnormals(self) -> bool:
        return self.man_bits > 0

    def table(self) -> np.ndarray:
        """float64 value of every code."""
        codes = np.arange(1 << self.bits)
        m = codes & ((1 << self.man_bits) - 1)
        e = (codes >> self.man_bits) & ((1 << self.exp_bits) - 1)
        frac = m / (1 << self.man_bits)
        normal = np.ldexp(1.0 + frac, e - self.bias)
        value = np.where(e > 0, normal, np.ldexp(frac, 1 - self.bias)) if self.subnormals else normal
        if self.signed:
            value = np.where(codes >> (self.bits - 1), -value, value)
        for code, special in self.specials.items():
            value[code] = special
        return value


_NAN, _INF = float("nan"), float("inf")

FORMATS: dict[str, Format] = {
    "DT_FP8E4M3FN": Format(4, 3, 7, specials={0x7F: _NAN, 0xFF: _NAN},
                           overflow=assumed.E4M3_OVERFLOW_CODE, nan=assumed.FP8_NAN_CODE["DT_FP8E4M3FN"]),
    "DT_FP8E5M2": Format(5, 2, 15, specials={0x7C: _INF, 0xFC: -_INF, **{c: _NAN for c in (
        0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF)}}, overflow=0x7C, nan=assumed.FP8_NAN_CODE["DT_FP8E5M2"]),
    "DT_FP8E8M0": Format(8, 0, 127, signed=False, specials={0xFF: _NAN}, nan=0xFF),
    "DT_FP4E2M1": Format(2, 1, 1),
    "DT_FP4E1M2": Format(1, 2, 1),
}

#: float64 value of every code, per format.
TABLES: dict[str, np.ndarray] = {name: fmt.table() for name, fmt in FORMATS.items()}


def decode(codes: np.ndarray, dtype: str) -> np.ndarray:
    """float32 values of `codes` (one per element; FP4 codes unpacked)."""
    return TABLES[dtype].astype(np.float32)[np.asarray(codes, np.intp)]


def _positive_grid(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Finite non-negative values in increasing order and their codes."""
    table = TABLES[dtype]
    codes = np.arange(table.size)
    if FORMATS[dtype].signed:
        codes = codes[: table.size // 2]
    codes = codes[np.isfinite(table[codes])]
    return table[codes], codes


_GRIDS = {name: _positive_grid(name) for name in FORMATS}

#: How each mode rounds a magnitude `s` (in units of the grid spacing): a function of
#: (s, negative); ties are decided on the integer's parity, which is the mantissa's last bit.
_ROUND = {
    "CAST_RINT": lambda s, neg: np.rint(s),
    "CAST_ROUND": lambda s, neg: np.floor(s + 0.5),
    "CAST_TRUNC": lambda s, neg: np.floor(s),
    "CAST_FLOOR": lambda s, neg: np.where(neg, np.ceil(s), np.floor(s)),
    "CAST_CEIL": lambda s, neg: np.where(neg, np.floor(s), np.ceil(s)),
}
#: Modes that round every magnitude down; IEEE keeps such an overflow at the largest finite value.
_TOWARD_ZERO = {
    "CAST_TRUNC": lambda neg: np.ones_like(neg),
    "CAST_FLOOR": lambda neg: ~neg,
    "CAST_CEIL": lambda neg: neg,
}


def encode(values: np.ndarray, dtype: str, mode: str = "CAST_RINT", saturate: bool = False) -> np.ndarray:
    """Codes (uint8, one per element) of `values` in `dtype` under `mode`.

    Out-of-range values and infinities give the largest finite value with `saturate` or a
    format without an overflow code (FP4), else the format's overflow code; NaN gives the
    format's NaN without `saturate`, else (and in FP4) 0 (`assumed.FP8_NAN_CODE`)."""
    if dtype == "DT_FP8E8M0":
        return encode_e8m0(values)
    if mode not in _ROUND:
        raise UnsupportedOpError(f"{mode} to {dtype} is not implemented")
    fmt = FORMATS[dtype]
    with np.errstate(invalid="ignore"):  # a signalling NaN is a NaN
        x = np.asarray(values, np.float64)
    neg = np.signbit(x)
    a = np.abs(x)
    grid, grid_codes = _GRIDS[dtype]
    top = grid[-1]
    finite = np.isfinite(a)
    exp = np.maximum(np.frexp(np.where(finite, a, 1.0))[1] - 1, 1 - fmt.bias)  # floor(log2 a), at least emin
    quantum = np.ldexp(1.0, exp - fmt.man_bits)
    mag = _ROUND[mode](np.where(finite, a, 0.0) / quantum, neg) * quantum
    over = (mag > top) | ~finite
    down = _TOWARD_ZERO[mode](neg) if mode in _TOWARD_ZERO else np.zeros_like(neg)
    keep_max = saturate or fmt.overflow is None
    clamp = over & (keep_max | (down & finite))  # an infinity is exact: it overflows in every mode
    mag = np.where(clamp, top, np.where(over, 0.0, mag))
    code = grid_codes[np.searchsorted(grid, mag)]
    sign = (neg.astype(np.int64) << (fmt.bits - 1)) if fmt.signed else 0
    code = code | sign
    if fmt.overflow is not None:
        code = np.where(over & ~clamp, fmt.overflow | sign, code)
    nan = np.isnan(x)
    nan_code = 0 if saturate or fmt.nan is None else fmt.nan
    code = np.where(nan, nan_code | (sign if nan_code else 0), code)
    return code.astype(np.uint8)


def encode_e8m0(values: np.ndarray) -> np.ndarray:
    """E8M0 codes of float values (`assumed.E8M0_FROM_EXPONENT_FIELD`): the exponent field of
    the value's float32 bits, which has E8M0's width and bias; an infinity gives the largest
    code 0xFE and NaN 0xFF, as documented."""
    x = np.asarray(values, np.float32)
    field_ = (x.view(np.uint32) >> 23) & 0xFF
    code = np.where(np.isinf(x), 0xFE, field_)
    return np.where(np.isnan(x), 0xFF, code).astype(np.uint8)


def pack4(codes: np.ndarray) -> np.ndarray:
    """Bytes of FP4 codes, two per byte: element 2k in the low 4 bits, 2k + 1 in the high."""
    c = np.asarray(codes, np.uint8).reshape(-1, 2)
    return (c[:, 0] & 0xF) | (c[:, 1] << 4)


def unpack4(data: np.ndarray) -> np.ndarray:
    """FP4 codes of packed bytes, low 4 bits first."""
    b = np.asarray(data, np.uint8)
    return np.stack([b & 0xF, b >> 4], axis=-1).reshape(-1)
