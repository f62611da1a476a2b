"""Byte-addressed memories and access footprints.

Each memory space of each core is one numpy uint8 buffer of the documented capacity
(`pto_api.memory.MEMORY_SPACES`), so tiles at overlapping addresses really alias. An access
covers a strided set of byte rows (a 2-D window of a row-major tile or GM tensor); the race
detector compares these footprints exactly, so two AIVs writing different column halves of
one GM row block do not look like a race.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Footprint:
    """Bytes `[base + r*stride, base + r*stride + width)` for r in range(rows) of one memory."""

    key: tuple
    base: int
    stride: int
    rows: int
    width: int

    @staticmethod
    def make(key: tuple, base: int, stride: int, rows: int, width: int) -> "Footprint":
        if rows <= 1 or width >= stride:
            # contiguous (adjacent rows): one interval
            total = width + (rows - 1) * stride if rows > 1 else width
            return Footprint(key, base, max(total, 1), 1, total)
        return Footprint(key, base, stride, rows, width)

    @property
    def end(self) -> int:
        return self.base + (self.rows - 1) * self.stride + self.width

    def _row_hits(self, start: int, stop: int) -> bool:
        """Does any of my rows intersect [start, stop)?"""
        lo = (start - self.width - self.base) // self.stride + 1
        hi = -((-(stop - self.base)) // self.stride) - 1
        return max(lo, 0) <= min(hi, self.rows - 1)

    def overlaps(self, other: "Footprint") -> bool:
        if self.key != other.key or self.width == 0 or other.width == 0:
            return False
        if self.end <= other.base or other.end <= self.base:
            return False
        small, big = (self, other) if self.rows <= other.rows else (other, self)
        for r in range(small.rows):
            s = small.base + r * small.stride
            if big._row_hits(s, s + small.width):
                return True
        return False

    def within(self, other: "Footprint") -> bool:
        """Is every byte of self inside other?"""
        if self.key != other.key:
            return False
        for r in range(self.rows):
            s = self.base + r * self.stride
            k = (s - other.base) // other.stride
            if not 0 <= k < other.rows:
                return False
            row = other.base + k * other.stride
            if s + self.width > row + other.width:
                return False
        return True

    def describe(self) -> str:
        if self.rows == 1:
            return f"bytes [{self.base:#x}, {self.end:#x})"
        return f"{self.rows} rows of {self.width} bytes from {self.base:#x} (stride {self.stride})"
