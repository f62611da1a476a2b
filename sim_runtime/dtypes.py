"""`pl.DT_*` data types and how their values are stored in emulated bytes.

Values live in memory in the tile's own dtype so that aliasing tiles see real bytes. numpy
has no bfloat16, so BF16 is stored as uint16 and computed in float32 with round-to-nearest-
even on the way back. The 8- and 4-bit floats are stored as their codes (uint8; a byte holds
two FP4 codes, the first in the low 4 bits): no arithmetic takes them, `vf.astype` converts
them (`minifloat` has the codecs), HiF8 is storage only (its encoding is not documented).
"""

from __future__ import annotations

import numpy as np

from pto_api.memory import DTYPE_BITS, element_bytes

_NUMPY = {
    "DT_BOOL": np.uint8,
    "DT_INT8": np.int8,
    "DT_UINT8": np.uint8,
    "DT_INT16": np.int16,
    "DT_UINT16": np.uint16,
    "DT_INT32": np.int32,
    "DT_UINT32": np.uint32,
    "DT_INT64": np.int64,
    "DT_UINT64": np.uint64,
    "DT_FP16": np.float16,
    "DT_BF16": np.uint16,  # storage; compute in float32
    "DT_FP32": np.float32,
}


class DType:
    """A `pl.DT_*` constant."""

    def __init__(self, name: str):
        self.name = name
        self.bits = DTYPE_BITS[name]
        self.itemsize = element_bytes(name)

    def __repr__(self) -> str:
        return f"pl.{self.name}"

    # the API of the real dtype objects
    def get_bit(self) -> int:
        return self.bits

    def is_float(self) -> bool:
        return "FP" in self.name or "HF" in self.name or self.name == "DT_BF16"

    def is_int(self) -> bool:
        return "INT" in self.name

    def is_signed_int(self) -> bool:
        return self.name.startswith("DT_INT")

    @property
    def storage(self) -> type:
        """numpy dtype of the stored bytes; None when the emulator cannot compute on it."""
        return _NUMPY.get(self.name, np.uint8)

    @property
    def computable(self) -> bool:
        return self.name in _NUMPY

    @property
    def compute(self) -> type:
        return np.float32 if self.name == "DT_BF16" else _NUMPY.get(self.name, np.uint8)

    def to_compute(self, stored: np.ndarray) -> np.ndarray:
        if self.name == "DT_BF16":
            return (stored.astype(np.uint32) << 16).view(np.float32)
        return stored

    def to_storage(self, values: np.ndarray) -> np.ndarray:
        if self.name == "DT_BF16":
            bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
            rounded = bits + 0x7FFF + ((bits >> 16) & 1)  # round to nearest even
            return (rounded >> 16).astype(np.uint16)
        return np.asarray(values).astype(self.storage, copy=False)


DTYPES: dict[str, DType] = {name: DType(name) for name in DTYPE_BITS}


def from_numpy(dt: np.dtype) -> DType:
    """The pl dtype a host numpy array maps to (float32 -> DT_FP32, ...)."""
    for name, npt in _NUMPY.items():
        if name not in ("DT_BOOL", "DT_BF16") and np.dtype(npt) == np.dtype(dt):
            return DTYPES[name]
    if np.dtype(dt) == np.bool_:
        return DTYPES["DT_BOOL"]
    raise TypeError(f"no pl dtype for numpy dtype {dt}")
