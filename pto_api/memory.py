"""Memory spaces of the Ascend 950 (A5) core, as `pl.MemorySpace` names them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MemorySpace:
    name: str  #: `pl.MemorySpace.<name>`
    hardware: str  #: what the hardware calls it
    owner: str  #: "aic" or "aiv": the core whose private memory this is ("all" for GM)
    capacity: int | None  #: bytes per core; None where the docs give no figure
    alignment: int  #: required byte alignment of a tile address (1 = none checked)


MEMORY_SPACES: dict[str, MemorySpace] = {
    m.name: m
    for m in (
        MemorySpace("DDR", "GM", "all", None, 1),
        MemorySpace("Vec", "UB", "aiv", 248 * 1024, 32),
        MemorySpace("Mat", "L1", "aic", 512 * 1024, 32),
        MemorySpace("Left", "L0A", "aic", 64 * 1024, 512),
        MemorySpace("Right", "L0B", "aic", 64 * 1024, 512),
        # Not documented; an FA test allocates 4 x 64 KB, so at least 256 KB.
        MemorySpace("Acc", "L0C", "aic", 256 * 1024, 64),
        MemorySpace("Bias", "BT", "aic", 4 * 1024, 1),
        MemorySpace("Scaling", "FB", "aic", 4 * 1024, 1),
        MemorySpace("ScaleLeft", "L0A-scale", "aic", 4 * 1024, 32),
        MemorySpace("ScaleRight", "L0B-scale", "aic", 4 * 1024, 32),
    )
}

#: The seed: "跨核 Buffer 仅支持 UB 和 L1 Buffer" -- cross-core buffers live only in UB or L1.
CROSS_CORE_SPACES = frozenset({"Vec", "Mat"})

#: Spaces a tile group may be declared in (what `target_memory=pl.MemorySpace.X` may name).
TILE_SPACES = frozenset({"Vec", "Mat", "Left", "Right", "Acc", "ScaleLeft", "ScaleRight", "Bias", "Scaling"})

#: Bits per element of each `pl.DT_*` dtype.
DTYPE_BITS: dict[str, int] = {
    "DT_BOOL": 8,
    "DT_INT4": 4,
    "DT_UINT4": 4,
    "DT_INT8": 8,
    "DT_UINT8": 8,
    "DT_INT16": 16,
    "DT_UINT16": 16,
    "DT_INT32": 32,
    "DT_UINT32": 32,
    "DT_INT64": 64,
    "DT_UINT64": 64,
    "DT_FP16": 16,
    "DT_BF16": 16,
    "DT_FP32": 32,
    "DT_FP8E4M3FN": 8,
    "DT_FP8E5M2": 8,
    "DT_FP8E8M0": 8,
    "DT_HF8": 8,
    "DT_FP4": 4,
    "DT_HF4": 4,
    "DT_FP4E2M1": 4,
    "DT_FP4E1M2": 4,
}


def int_values(dtype: str) -> tuple[int, int] | None:
    """The least and greatest value a `pl` integer dtype holds (`DT_UINT8`: 0..255); None for
    any other dtype. A scalar argument of that dtype holds no other value."""
    bits = DTYPE_BITS.get(dtype)
    if not bits or dtype == "DT_BOOL":
        return (0, 1) if dtype == "DT_BOOL" else None
    if dtype.startswith("DT_UINT"):
        return 0, 2 ** bits - 1
    if dtype.startswith("DT_INT"):
        return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return None


#: The values a scalar of a Python type a kernel declares holds when the kernel is launched:
#: an `int` is passed as a 64-bit integer, a `bool` as 0 or 1.
PYTHON_INT_VALUES = {"int": (-(2 ** 63), 2 ** 63 - 1), "bool": (0, 1)}


def scalar_int_values(declared: str) -> tuple[int, int] | None:
    """The least and greatest value of a scalar declared `declared` (`int`, `bool` or a `pl`
    integer dtype's name such as `DT_UINT8`); None when that is no integer type. A launch
    passes no other value, so the soundness check proves a kernel for these values, and the
    emulator and `--arg` refuse others."""
    return PYTHON_INT_VALUES.get(declared) or int_values(declared)


def integer_argument_fault(declared: str, value: object) -> str | None:
    """Why `value` cannot be passed for a scalar declared `declared` (an integer type of
    `scalar_int_values`): not an integer (a fraction, text, a NaN), or outside its values.
    None when it can be; a whole float (`3.0`) can, as the integer it is."""
    bounds = scalar_int_values(declared)
    if bounds is None:
        return None
    if isinstance(value, float):
        if not value.is_integer():
            return f"{value!r} is not an integer"
        value = int(value)
    try:
        number = int(value)  # type: ignore[call-overload]  # numpy integers and bools too
    except (TypeError, ValueError, OverflowError):
        return f"{value!r} is not an integer"
    if number != value:
        return f"{value!r} is not an integer"
    if not bounds[0] <= number <= bounds[1]:
        return f"{value!r} is outside its values {bounds[0]}..{bounds[1]}"
    return None


def element_bytes(dtype: str) -> int:
    """Bytes per element as the front end sizes tiles: ceil(bits/8), at least 1."""
    return max(1, (DTYPE_BITS[dtype] + 7) // 8)
