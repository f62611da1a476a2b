"""Value conversion between `pl.DT_*` types under the `pl.RoundMode` rules.

Shared by the block op `pl.cast` and the register op `vf.astype`. The modes: CAST_RINT
nearest with ties to even; CAST_ROUND nearest with ties away from zero; CAST_FLOOR,
CAST_CEIL, CAST_TRUNC as named; CAST_ODD round to odd (inexact results take the candidate
with an odd last bit). CAST_NONE is undefined by the documentation and treated as CAST_RINT.
Narrowing float conversions are done by numpy (round to nearest even) and then corrected
towards the other candidate where the mode asks for it, so every mode is exact.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sim_runtime.dtypes import DType
from sim_runtime.errors import UnsupportedOpError

NEAREST_EVEN = ("CAST_RINT", "CAST_NONE")
MODES = ("CAST_NONE", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD")

_TO_INT: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "CAST_RINT": np.rint, "CAST_NONE": np.rint, "CAST_ODD": np.rint,
    "CAST_ROUND": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    "CAST_FLOOR": np.floor, "CAST_CEIL": np.ceil, "CAST_TRUNC": np.trunc,
}


def _narrow_float(x: np.ndarray, target: type, mode: str) -> np.ndarray:
    """Round float values `x` to the numpy float type `target` (narrower) under `mode`."""
    near: np.ndarray = x.astype(target)  # nearest, ties to even
    if mode in NEAREST_EVEN:
        return near
    wide = x.astype(np.float64)
    back = near.astype(np.float64)
    inexact = (back != wide) & np.isfinite(wide)
    if not inexact.any():
        return near
    other = np.where(back < wide, np.nextafter(near, target(np.inf)), np.nextafter(near, target(-np.inf)))
    if mode == "CAST_ROUND":  # a tie lies exactly half way: take the candidate farther from zero
        tie = inexact & (2 * wide == back + other.astype(np.float64))
        pick = tie & (np.abs(other) > np.abs(near))
    elif mode == "CAST_FLOOR":
        pick = inexact & (back > wide)
    elif mode == "CAST_CEIL":
        pick = inexact & (back < wide)
    elif mode == "CAST_TRUNC":
        pick = inexact & (np.abs(back) > np.abs(wide))
    elif mode == "CAST_ODD":
        bits = np.dtype(target).itemsize * 8
        as_int = np.dtype(f"u{bits // 8}")
        pick = inexact & ((near.view(as_int) & 1) == 0)
    else:
        raise UnsupportedOpError(f"round mode {mode} is not known")
    return np.where(pick, other, near).astype(target)


def convert(values: np.ndarray, src: DType, dst: DType, mode: str = "CAST_RINT") -> np.ndarray:
    """`values` (src's compute type) converted to dst's compute type."""
    if mode not in MODES:
        raise UnsupportedOpError(f"round mode {mode} is not known")
    values = np.asarray(values)
    if dst.is_float():
        if src.is_float() and dst.bits < src.bits:
            if dst.name == "DT_BF16":
                if mode not in NEAREST_EVEN:
                    raise UnsupportedOpError(f"conversion to DT_BF16 with {mode} is not implemented")
                return values.astype(np.float32)  # stored with round to nearest even
            return _narrow_float(values, dst.compute, mode)
        return values.astype(dst.compute)
    if src.is_float():
        return _TO_INT[mode](values).astype(dst.compute)
    return values.astype(dst.compute)
