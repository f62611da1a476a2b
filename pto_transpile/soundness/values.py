"""The values the soundness interpreter computes with.

Scalars are plain Python numbers (or `UNKNOWN` when they depend on data or on something the
interpreter does not model). Handles name memory: a tensor in GM, a tile group with its
slots, one tile (a slot, a `pl.make_tile` tile or a view of either), structs and tuples.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst


class _Unknown:
    """A value the interpreter cannot know statically (data, an unmodelled call, ...)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "?"

    def __bool__(self) -> bool:  # pragma: no cover - a bug if reached: conditions check first
        raise TypeError("truth value of an unknown")


UNKNOWN = _Unknown()


def known(*values: Any) -> bool:
    return all(v is not UNKNOWN for v in values)


@dataclass(frozen=True)
class Symbol:
    """A `pl` attribute constant: `pl.PipeType.V`, `pl.MemorySpace.Vec`, `pl.DT_FP32`, ..."""

    path: tuple[str, ...]

    @property
    def leaf(self) -> str:
        return self.path[-1]


@dataclass(frozen=True)
class TensorV:
    """A GM tensor (a kernel parameter); element coordinates address it."""

    name: str
    shape: tuple  #: dims, UNKNOWN where not static
    elem: int  #: bytes per element


@dataclass(frozen=True)
class TileTypeV:
    shape: tuple
    memory: str
    elem: int
    valid: tuple = ()  #: `valid_shape`, when static and given

    @property
    def nbytes(self) -> int:
        n = self.elem
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True)
class TileV:
    """One tile: bytes `[lo, hi)` of `memory`, guarded by `mutex` ids (empty: no auto_mutex)."""

    memory: str
    lo: int
    hi: int
    mutex: tuple[int, ...]
    label: str  #: `x_db[1]` or the `pl.make_tile` variable, for messages
    shape: tuple = ()
    valid: tuple = ()  #: the valid shape when it differs from `shape` (padding rows)


@dataclass(frozen=True)
class AnyTileV:
    """One of several tiles, which one is unknown (a runtime index, an unknown cursor)."""

    choices: tuple[TileV, ...]
    label: str


@dataclass(eq=False)
class GroupV:
    """A tile group; each core keeps its own cursor (`Core.cursors`)."""

    name: str
    tiles: tuple[TileV, ...]
    node: cst.CSTNode

    @property
    def depth(self) -> int:
        return len(self.tiles)


@dataclass(eq=False)
class StructV:
    """`pl.struct(...)`, a `pl.struct_array` entry or `pl.make_tuple(...)`: mutable fields."""

    fields: dict = field(default_factory=dict)
    origin: str = ""


@dataclass(frozen=True)
class FunctionV:
    kind: str  #: "stage", "helper" or "vf"
    node: cst.FunctionDef

    @property
    def name(self) -> str:
        name = self.node.name  # a vector function kept as text has a plain name
        return name if isinstance(name, str) else name.value


@dataclass(frozen=True)
class Builtin:
    name: str
