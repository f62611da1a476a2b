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


def element_bytes(dtype: str) -> int:
    """Bytes per element as the front end sizes tiles: ceil(bits/8), at least 1."""
    return max(1, (DTYPE_BITS[dtype] + 7) // 8)
