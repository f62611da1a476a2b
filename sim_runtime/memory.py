"""Byte-addressed memories and access footprints.

Each memory space of each core is one numpy uint8 buffer of the documented capacity
(`pto_api.memory.MEMORY_SPACES`), so tiles at overlapping addresses really alias. An access
covers a set of byte intervals: a row block of an ND tile, the column blocks of an NZ tile,
the 32-byte blocks a vector function stored. The race detector compares these sets exactly,
so two AIVs writing different column halves of one GM row block, or the padding row an NZ
tile skips, never look like a race.
"""

from __future__ import annotations

import numpy as np

from pto_api.memory import MEMORY_SPACES


class Memory:
    """One physical memory: a space of one core (or one GM tensor)."""

    def __init__(self, key: tuple, space: str, capacity: int):
        self.key = key
        self.space = space
        self.capacity = capacity
        self._buf: np.ndarray | None = None

    @property
    def buf(self) -> np.ndarray:
        if self._buf is None:  # allocate lazily: most cores touch few spaces
            self._buf = np.zeros(self.capacity, dtype=np.uint8)
        return self._buf

    def label(self) -> str:
        return " ".join(str(k) for k in self.key)


def space_capacity(space: str) -> int:
    cap = MEMORY_SPACES[space].capacity
    return cap if cap is not None else 4 * 1024


def _merge(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort intervals and merge those that overlap or touch."""
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    reach = np.maximum.accumulate(ends)
    new = np.concatenate(([True], starts[1:] > reach[:-1]))
    idx = np.flatnonzero(new)
    return starts[idx], np.maximum.reduceat(ends, idx)


class Footprint:
    """The bytes one access touches in one memory: sorted, disjoint, non-touching intervals."""

    __slots__ = ("key", "starts", "ends")

    def __init__(self, key: tuple, starts: np.ndarray, ends: np.ndarray):
        self.key, self.starts, self.ends = key, starts, ends

    @staticmethod
    def make(key: tuple, base: int, stride: int, rows: int, width: int) -> Footprint:
        """Bytes `[base + r*stride, base + r*stride + width)` for r in range(rows)."""
        if rows <= 1 or width >= stride:  # one interval
            total = width + (rows - 1) * stride if rows > 1 else width
            return Footprint(key, np.array([base], np.int64), np.array([base + total], np.int64))
        starts = base + stride * np.arange(rows, dtype=np.int64)
        return Footprint(key, starts, starts + width)

    @staticmethod
    def of(key: tuple, starts, ends, *, merged: bool = False) -> Footprint:
        """From any intervals; `merged=True` promises they are already sorted and disjoint."""
        starts = np.asarray(starts, np.int64)
        ends = np.asarray(ends, np.int64)
        if not merged and starts.size > 1:
            starts, ends = _merge(starts, ends)
        return Footprint(key, starts, ends)

    def __eq__(self, other) -> bool:
        return (isinstance(other, Footprint) and self.key == other.key
                and np.array_equal(self.starts, other.starts) and np.array_equal(self.ends, other.ends))

    def __repr__(self) -> str:
        return f"Footprint({self.key}, {self.describe()})"

    @property
    def base(self) -> int:
        return int(self.starts[0]) if self.starts.size else 0

    @property
    def end(self) -> int:
        return int(self.ends[-1]) if self.ends.size else 0

    @property
    def nbytes(self) -> int:
        return int((self.ends - self.starts).sum())

    def intervals(self):
        return zip(self.starts.tolist(), self.ends.tolist(), strict=True)

    def overlaps(self, other: Footprint) -> bool:
        if self.key != other.key or not self.starts.size or not other.starts.size:
            return False
        if self.end <= other.base or other.end <= self.base:
            return False
        a, b = (self, other) if self.starts.size <= other.starts.size else (other, self)
        # for each interval of a: the first interval of b ending after its start
        j = np.searchsorted(b.ends, a.starts, side="right")
        ok = j < b.starts.size
        return bool(np.any(b.starts[j[ok]] < a.ends[ok]))

    def within(self, other: Footprint) -> bool:
        """Is every byte of self inside other?"""
        if self.key != other.key:
            return False
        if not self.starts.size:
            return True
        j = np.searchsorted(other.starts, self.starts, side="right") - 1
        if np.any(j < 0):
            return False
        return bool(np.all(other.ends[j] >= self.ends))

    def describe(self) -> str:
        n = self.starts.size
        if n == 1:
            return f"bytes [{self.base:#x}, {self.end:#x})"
        widths, steps = self.ends - self.starts, np.diff(self.starts)
        if n > 1 and np.all(widths == widths[0]) and np.all(steps == steps[0]):
            return f"{n} rows of {int(widths[0])} bytes from {self.base:#x} (stride {int(steps[0])})"
        return f"{n} byte ranges in [{self.base:#x}, {self.end:#x}), {self.nbytes} bytes"

    def snapshot(self, buf: np.ndarray) -> bytes:
        """The bytes of `buf` this footprint covers (for the benign-duplicate-write check)."""
        if self.starts.size == 1:
            return buf[self.base:self.end].tobytes()
        return b"".join(buf[s:e].tobytes() for s, e in self.intervals())
