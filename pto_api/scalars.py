"""A scalar as a field of a `pl.struct` (or a `pl.struct_array` entry) holds it.

PyPTO lowers a struct to a C++ struct whose fields take their initialiser's type: a field
initialised with `pl.const(v, dtype)` holds values of that dtype (integers wrap, floats round
to nearest even, bf16 keeps 8 bits of mantissa after rounding to fp32), one initialised with
a Python int holds integers (a float stored into it is truncated toward zero), one initialised
with a Python float keeps what it is given. Plain Python, so the soundness check can follow it
without numpy; the emulator stores the same values (a test compares the two).
"""

from __future__ import annotations

import math
import struct

from pto_api.memory import DTYPE_BITS, int_values

#: the kind of a field initialised with a Python int
INT_FIELD = "int"

_FLOAT_FORMATS = {"DT_FP16": "e", "DT_FP32": "f"}


def storable(dtype: str) -> bool:
    """Does a field of `dtype` hold numbers this module converts (the integer, fp16, bf16 and
    fp32 dtypes, and bool)?"""
    return dtype == INT_FIELD or dtype in _FLOAT_FORMATS or dtype == "DT_BF16" or dtype == "DT_BOOL" \
        or dtype.startswith(("DT_INT", "DT_UINT")) and DTYPE_BITS.get(dtype, 0) >= 8


def stored(value: int | float, kind: str) -> int | float:
    """`value` as a field of `kind` (`INT_FIELD` or a `DT_*` name `storable` accepts) holds it.
    ValueError where the device's conversion is not defined: a NaN, an infinity or a float past
    the range of an integer dtype (numpy gives whatever the platform's conversion gives)."""
    width = DTYPE_BITS.get(kind, 0)
    if isinstance(value, float) and kind != INT_FIELD and kind not in _FLOAT_FORMATS and kind != "DT_BF16":
        low, high = (-(2.0 ** (width - 1)), 2.0 ** (width - 1)) if kind.startswith("DT_INT") else (0.0, 2.0 ** width)
        if not (math.isfinite(value) and low <= value < high):
            raise ValueError(f"{value!r} as {kind}")
    elif isinstance(value, float) and kind == INT_FIELD and not math.isfinite(value):
        raise ValueError(f"{value!r} as an integer")
    if kind == INT_FIELD:
        return int(value)
    if kind in _FLOAT_FORMATS:
        return _rounded(_float(value), _FLOAT_FORMATS[kind])
    if kind == "DT_BF16":
        bits = struct.unpack("<I", struct.pack("<f", _rounded(_float(value), "f")))[0]
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF  # round to nearest even
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    whole = int(value) & ((1 << width) - 1)
    signed = kind.startswith("DT_INT")
    return whole - (1 << width) if signed and whole >> (width - 1) else whole


def _float(value: int | float) -> float:
    """`value` as a float, an integer past 2 ** 53 rounded once to fp32's 24 bits, as numpy
    converts an int64 to float32 (through a double it would round twice)."""
    if isinstance(value, float) or abs(value) < 2 ** 53:
        return float(value)
    shift = abs(value).bit_length() - 24
    quotient, rest = divmod(abs(value), 1 << shift)
    half = 1 << (shift - 1)
    if rest > half or rest == half and quotient & 1:
        quotient += 1
    return math.copysign(float(quotient << shift), value)


def _rounded(value: float, code: str) -> float:
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return struct.unpack(code, struct.pack(code, value))[0]
    except OverflowError:  # past the format's largest finite value
        return math.copysign(math.inf, value)


#: the integers each float dtype holds exactly: those of at most this many bits (its mantissa
#: and the hidden bit)
_EXACT_INT_BITS = {"DT_FP16": 11, "DT_BF16": 8, "DT_FP32": 24}


def holds_every(kind: str, dtype: str) -> bool:
    """Does a scalar of `kind` hold every value of `dtype` unchanged (an int8 parameter as
    `DT_INT16`, or as `DT_FP32`)?"""
    inner, outer = int_values(dtype), int_values(kind)
    if inner is not None and outer is not None:
        return outer[0] <= inner[0] and inner[1] <= outer[1]
    if inner is not None and kind in _EXACT_INT_BITS:
        return max(abs(inner[0]), inner[1]) <= 2 ** _EXACT_INT_BITS[kind]
    return kind == dtype or (dtype in ("DT_FP16", "DT_BF16") and kind == "DT_FP32")
