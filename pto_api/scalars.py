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

from pto_api.memory import DTYPE_BITS

#: the kind of a field initialised with a Python int
INT_FIELD = "int"

_FLOAT_FORMATS = {"DT_FP16": "e", "DT_FP32": "f"}


def storable(dtype: str) -> bool:
    """Does a field of `dtype` hold numbers this module converts (the integer, fp16, bf16 and
    fp32 dtypes, and bool)?"""
    return dtype == INT_FIELD or dtype in _FLOAT_FORMATS or dtype == "DT_BF16" or dtype == "DT_BOOL" \
        or dtype.startswith(("DT_INT", "DT_UINT")) and DTYPE_BITS.get(dtype, 0) >= 8


def stored(value: int | float, kind: str) -> int | float:
    """`value` as a field of `kind` (`INT_FIELD` or a `DT_*` name `storable` accepts) holds it."""
    if kind == INT_FIELD:
        return int(value)
    if kind in _FLOAT_FORMATS:
        return _rounded(float(value), _FLOAT_FORMATS[kind])
    if kind == "DT_BF16":
        bits = struct.unpack("<I", struct.pack("<f", _rounded(float(value), "f")))[0]
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF  # round to nearest even
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    width = DTYPE_BITS[kind]
    whole = int(value) & ((1 << width) - 1)
    signed = kind.startswith("DT_INT")
    return whole - (1 << width) if signed and whole >> (width - 1) else whole


def _rounded(value: float, code: str) -> float:
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return struct.unpack(code, struct.pack(code, value))[0]
    except OverflowError:  # past the format's largest finite value
        return math.copysign(math.inf, value)
