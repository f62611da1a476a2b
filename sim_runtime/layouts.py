"""Physical tile layouts: where element (r, c) of a tile sits, counted in elements from its first byte.

Offsets always use the declared `shape` [R, C], never the valid shape. With e the element
size and C0 = 32 / e (the elements of one 32-byte block):

* ND: `r*C + c` (row-major); DN: `c*R + r` (column-major).
* NZ: fractals of 16 rows x C0 columns, fractals column-major, row-major inside:
  `(c // C0) * (R*C0) + r*C0 + c % C0`. The tile is a sequence of column blocks, one
  32-byte block per row, so column block j starts at byte `j * R * 32`. A Vec NZ tile may
  have any row count (a `[65, 64]` fp16 tile has a column-block stride of 65 blocks).
* ZN: fractals of R0 = 32 / e rows x 16 columns, fractals row-major, column-major inside:
  `(r // R0) * (C*R0) + c*R0 + r % R0`. A ZN `[R, C]` tile is byte for byte the NZ
  `[C, R]` tile of the transposed matrix.
* Acc (L0C) NZ: the fractal is 16 x 16 whatever the dtype, so C0 = 16.

Maps are cached per (layout, shape, element size, accumulator); a tile window's byte
intervals (what the race detector compares) are cached too.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

from sim_runtime import assumed
from sim_runtime.errors import KernelError, UnsupportedOpError

BLOCK_BYTES = 32  #: one DataBlock: the inner width of every fractal
FRACTAL_SIDE = 16  #: the fixed side of a fractal (rows of NZ, columns of ZN, both of Acc)
EMULATED = ("ND", "DN", "NZ", "ZN")


def block_elems(itemsize: int, acc: bool = False) -> int:
    """C0 (NZ) / R0 (ZN): elements in one 32-byte block; 16 for the Acc fractal."""
    return FRACTAL_SIDE if acc else BLOCK_BYTES // itemsize


def check_shape(layout: str, shape, itemsize: int, space: str) -> None:
    """Fractal layouts need whole fractals along their block side (and 16-row fractals outside
    UB, except a one-row vector in L1: `assumed.ONE_ROW_FRACTAL_SPACES`)."""
    rows, cols = shape
    acc = space == "Acc"
    k = block_elems(itemsize, acc)
    if layout == "NZ":
        if cols % k:
            raise KernelError(f"an NZ tile needs columns in multiples of {k} ({BLOCK_BYTES}-byte blocks), got {cols}")
        if space != "Vec" and rows % FRACTAL_SIDE and not (rows == 1 and space in assumed.ONE_ROW_FRACTAL_SPACES):
            raise KernelError(f"an NZ tile in {space} needs rows in multiples of {FRACTAL_SIDE}, got {rows}")
    elif layout == "ZN":
        if rows % k:
            raise KernelError(f"a ZN tile needs rows in multiples of {k} ({BLOCK_BYTES}-byte blocks), got {rows}")
        if space != "Vec" and cols % FRACTAL_SIDE and not (cols == 1 and space in assumed.ONE_ROW_FRACTAL_SPACES):
            raise KernelError(f"a ZN tile in {space} needs columns in multiples of {FRACTAL_SIDE}, got {cols}")


@cache
def offset_map(layout: str, rows: int, cols: int, itemsize: int, acc: bool = False) -> np.ndarray:
    """Element offset of every (r, c) of a `[rows, cols]` tile (read-only int64 array)."""
    r = np.arange(rows, dtype=np.int64)[:, None]
    c = np.arange(cols, dtype=np.int64)[None, :]
    if layout == "ND":
        out = r * cols + c
    elif layout == "DN":
        out = c * rows + r
    elif layout == "NZ":
        k = block_elems(itemsize, acc)
        out = (c // k) * (rows * k) + r * k + c % k
    elif layout == "ZN":
        k = block_elems(itemsize, acc)
        out = (r // k) * (cols * k) + c * k + r % k
    else:
        raise UnsupportedOpError(f"tiles in layout {layout} are not emulated (only {', '.join(EMULATED)})")
    out = np.ascontiguousarray(np.broadcast_to(out, (rows, cols)))
    out.flags.writeable = False
    return out


@lru_cache(maxsize=4096)
def window_intervals(layout: str, rows: int, cols: int, itemsize: int, acc: bool,
                     r0: int, c0: int, nr: int, nc: int) -> tuple[np.ndarray, np.ndarray]:
    """Byte intervals [start, end) (relative to the tile address) covered by a window, merged."""
    offs = np.sort(offset_map(layout, rows, cols, itemsize, acc)[r0:r0 + nr, c0:c0 + nc], axis=None)
    if offs.size == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty
    breaks = np.flatnonzero(np.diff(offs) != 1)
    starts = offs[np.concatenate(([0], breaks + 1))] * itemsize
    ends = (offs[np.concatenate((breaks, [offs.size - 1]))] + 1) * itemsize
    starts.flags.writeable = ends.flags.writeable = False
    return starts, ends
