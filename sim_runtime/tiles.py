"""Tile descriptors, tile groups (with the exact cursor rules), GM tensors and structs.

Every core executes the kernel body itself, so every object here is created per core: a
group declared outside the sections exists once on the AIC and once on each AIV, each with
its own cursor and valid shapes. Tile data is never held here: a tile
is a window onto a byte-addressed `Memory`, and every read or write goes through the
tile's physical layout (`layouts`), so tiles of different shapes or layouts that share
bytes really see each other's data.
"""

from __future__ import annotations

import enum
import linecache
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from pto_api import EVENT_IDS, effects, mutex_slot_error
from pto_api.effects import initial_cursor, initial_valid, pick_slot, slot_addresses
from pto_api.memory import MEMORY_SPACES, TILE_SPACES
from sim_runtime import layouts
from sim_runtime.dtypes import DType
from sim_runtime.errors import KernelError, Location, caller
from sim_runtime.memory import Footprint, Memory, space_capacity
from sim_runtime.scheduler import current_core


def table_enum(name: str, members: Mapping[str, object], base: type[enum.Enum] = enum.Enum) -> type[enum.Enum]:
    """An enum class whose members come from a table, so pl's vocabulary stays in pto_api.

    `EnumMeta.__call__` is what `base(name, members)` runs; spelt out, a type checker sees
    that it returns a class. It cannot see the members: code reads them as `X["NAME"]`."""
    return enum.EnumMeta.__call__(base, name, members)


MemorySpace = table_enum("MemorySpace", {name: name for name in MEMORY_SPACES})


class TileLayout(enum.Enum):
    ND = "ND"
    DN = "DN"
    NZ = "NZ"
    ZN = "ZN"
    NN = "NN"
    ZZ = "ZZ"


#: Default layout per space (`pto_api.effects.DEFAULT_LAYOUT`, the checker's table too).
DEFAULT_LAYOUT = {space: TileLayout[name] for space, name in effects.DEFAULT_LAYOUT.items()}


def _space_name(mem: Any) -> str:
    if isinstance(mem, MemorySpace):
        return mem.value
    if isinstance(mem, str) and mem in MEMORY_SPACES:
        return mem
    raise KernelError(f"not a pl.MemorySpace: {mem!r}")


@dataclass
class TileType:
    """`pl.TileType(shape, dtype, target_memory, valid_shape, layout, fractal, pad, compact)`."""

    shape: Any
    dtype: DType
    target_memory: Any = MemorySpace["Vec"]
    valid_shape: Any = None
    layout: Any = None
    fractal: Any = None
    pad: Any = None
    compact: Any = None

    def __post_init__(self):
        shape = list(self.shape)
        if len(shape) != 2 or not all(isinstance(d, int) and d > 0 for d in shape):
            raise KernelError(f"TileType shape must be 2 positive ints, got {self.shape!r}")
        self.shape = shape
        if self.valid_shape is not None and (not isinstance(self.valid_shape, (list, tuple))
                                             or len(self.valid_shape) != 2):
            raise KernelError(f"TileType valid_shape must be 2 entries, got {self.valid_shape!r}")
        try:
            initial_valid(shape, self.valid_shape)
        except ValueError as exc:  # (probe h250: a run-time valid shape of more rows than declared)
            raise KernelError(f"TileType {exc}") from None
        except TypeError:
            raise KernelError(f"TileType valid_shape must be ints or None, got {self.valid_shape!r}") from None
        if not isinstance(self.dtype, DType):
            raise KernelError(f"TileType dtype must be a pl.DT_* constant, got {self.dtype!r}")
        space = _space_name(self.target_memory)
        if space not in TILE_SPACES:
            raise KernelError(f"tiles cannot live in MemorySpace.{space}")
        self.space = space
        if self.layout is None:
            self.layout = DEFAULT_LAYOUT.get(space, TileLayout.ND)
        if not isinstance(self.layout, TileLayout):
            raise KernelError(f"TileType layout must be a pl layout (pl.ND, pl.NZ, ...), got {self.layout!r}")
        layouts.check_shape(self.layout.value, shape, self.dtype.itemsize, space)

    @property
    def nbytes(self) -> int:
        return self.shape[0] * self.shape[1] * self.dtype.itemsize

    def initial_valid(self) -> list[int]:
        return list(initial_valid(self.shape, self.valid_shape))


class Tile:
    """A tile descriptor of one core: a window of a memory space at a byte address."""

    def __init__(self, ttype: TileType, addr: int, owner, *, mutex: tuple = (), name: str | None = None,
                 base: tuple[int, int] = (0, 0), shape: tuple[int, int] | None = None,
                 valid: list[int] | None = None):
        self.type = ttype
        self.addr = addr
        self.owner = owner  # the Core whose program declared this descriptor
        self.mutex = mutex
        self.name = name or f"{ttype.space}@{addr:#x}"
        self.base = base
        self.shape = tuple(shape or ttype.shape)
        self.valid = list(valid if valid is not None else ttype.initial_valid())

    # -- descriptor facts -------------------------------------------------------------------
    @property
    def space(self) -> str:
        return self.type.space

    @property
    def dtype(self) -> DType:
        return self.type.dtype

    @property
    def layout(self) -> TileLayout:
        return self.type.layout

    def __repr__(self) -> str:
        return f"<tile {self.name} {list(self.shape)} {self.dtype.name} {self.space}>"

    def __getitem__(self, key):
        """`tile[r0:r1, c0:c1]`: a sub-view sharing the buffer and the declared shape (row
        stride); `tile[i, j]`: one element, read on pipe S."""
        if isinstance(key, tuple) and len(key) == 2 and not any(isinstance(k, slice) for k in key):
            return element_access(self, key)
        if not (isinstance(key, tuple) and len(key) == 2 and all(isinstance(k, slice) for k in key)):
            raise KernelError(f"tile subview needs two slices, got {key!r}")
        (r0, r1), (c0, c1) = ((k.start or 0, self.shape[i] if k.stop is None else k.stop) for i, k in enumerate(key))
        if not (0 <= r0 < r1 <= self.shape[0] and 0 <= c0 < c1 <= self.shape[1]):
            raise KernelError(f"subview [{r0}:{r1}, {c0}:{c1}] outside tile {self.name} {list(self.shape)}")
        valid = [max(0, min(r1, self.valid[0]) - r0), max(0, min(c1, self.valid[1]) - c0)]
        return Tile(self.type, self.addr, self.owner, mutex=self.mutex, name=f"{self.name}[{r0}:{r1},{c0}:{c1}]",
                    base=(self.base[0] + r0, self.base[1] + c0), shape=(r1 - r0, c1 - c0), valid=valid)

    def __setitem__(self, key, value) -> None:
        """`tile[i, j] = v`: one element, written on pipe S."""
        if not (isinstance(key, tuple) and len(key) == 2 and not any(isinstance(k, slice) for k in key)):
            raise KernelError(f"tile element store needs two indices, got {key!r}")
        element_access(self, key, value, store=True)

    # -- physical placement -----------------------------------------------------------------
    def _map(self) -> np.ndarray:
        (rows, cols), t = self.type.shape, self.type
        return layouts.offset_map(t.layout.value, rows, cols, t.dtype.itemsize, t.space == "Acc")

    def offsets(self, r0: int, c0: int, nr: int, nc: int) -> np.ndarray:
        """Element offsets (from the tile address) of window [r0:r0+nr, c0:c0+nc] of this view."""
        br, bc = self.base
        return self._map()[br + r0:br + r0 + nr, bc + c0:bc + c0 + nc]

    @property
    def pointer(self) -> int:
        """Byte address of this view's element (0, 0): what the tile means inside a vector function."""
        return self.addr + int(self._map()[self.base]) * self.dtype.itemsize

    def elements(self, mem: Memory) -> np.ndarray:
        """The declared tile's bytes as a flat storage-dtype array (physical order)."""
        rows, cols = self.type.shape
        return mem.buf[self.addr:self.addr + rows * cols * self.dtype.itemsize].view(self.dtype.storage)

    def read(self, mem: Memory, r0: int, c0: int, nr: int, nc: int) -> np.ndarray:
        """Logical values of a window (a copy, in the compute dtype)."""
        return self.dtype.to_compute(self.elements(mem)[self.offsets(r0, c0, nr, nc)])

    def write(self, mem: Memory, vals: np.ndarray, r0: int = 0, c0: int = 0) -> None:
        """Store logical values at window [r0:, c0:] of this view, through the layout."""
        nr, nc = vals.shape
        self.elements(mem)[self.offsets(r0, c0, nr, nc)] = self.dtype.to_storage(vals)

    def footprint(self, mem: Memory, r0: int, c0: int, nr: int, nc: int) -> Footprint:
        """The exact bytes of window [r0:r0+nr, c0:c0+nc] of this view."""
        (rows, cols), t = self.type.shape, self.type
        br, bc = self.base
        starts, ends = layouts.window_intervals(t.layout.value, rows, cols, t.dtype.itemsize, t.space == "Acc",
                                                br + r0, bc + c0, nr, nc)
        return Footprint(mem.key, starts + self.addr, ends + self.addr)

    def valid_footprint(self, mem: Memory) -> Footprint:
        return self.footprint(mem, 0, 0, self.valid[0], self.valid[1])


def element_access(tile: Tile, key, value=None, *, store: bool = False):
    """`v = t[i, j]` / `t[i, j] = v`: getval/setval at linear offset i * shape[1] + j of the
    declared shape from the tile's data pointer (whatever the layout), attributed to the kernel
    line that wrote the subscript."""
    where = caller(3)
    core = current_core()
    if core is None:
        raise KernelError("tile element access outside a simulated kernel run", where)
    i, j = (int(k) for k in key)
    offset = i * tile.type.shape[1] + j
    if store:
        return core.machine.run_op(core, "setval", (tile, offset, value), {}, where)
    return core.machine.run_op(core, "getval", (tile, offset), {}, where)


def check_placement(ttype: TileType, addr: int, size: int, where: Location | None) -> None:
    """Out-of-capacity or misaligned tiles are errors at declaration."""
    spec = MEMORY_SPACES[ttype.space]
    cap = space_capacity(ttype.space)
    if not isinstance(addr, int) or addr < 0:
        raise KernelError(f"tile address must be a non-negative int, got {addr!r}", where)
    if spec.alignment > 1 and addr % spec.alignment:
        raise KernelError(
            f"tile address {addr:#x} in {ttype.space} is not {spec.alignment}-byte aligned", where)
    if size < ttype.nbytes:
        raise KernelError(f"tile size {size} is smaller than its shape needs ({ttype.nbytes} bytes)", where)
    if addr + size > cap:
        raise KernelError(
            f"tile [{addr:#x}, {addr + size:#x}) exceeds {ttype.space} capacity {cap} bytes ({cap // 1024} KB)", where)


class TileGroup:
    """`pl.make_tile_group` handle: `depth` slots and a per-core cursor (first next() gives slot 0)."""

    def __init__(self, tiles: list[Tile], name: str, fwd_ids=None, bwd_ids=None):
        self.tiles = tiles
        self.name = name
        self.depth = len(tiles)
        self.cursor = initial_cursor(self.depth)
        self.fwd_ids = fwd_ids
        self.bwd_ids = bwd_ids

    def __repr__(self) -> str:
        return f"<tile group {self.name} depth {self.depth} cursor {self.cursor}>"

    def _pick(self, accessor: str) -> Tile:
        self.cursor, slot = pick_slot(self.cursor, accessor, self.depth)
        return self.tiles[slot]

    def next(self) -> Tile:
        return self._pick("next")

    def current(self) -> Tile:
        return self._pick("current")

    def previous(self) -> Tile:
        return self._pick("previous")

    def __getitem__(self, i) -> Tile:
        i = int(i)
        if not 0 <= i < self.depth:
            raise KernelError(f"tile group {self.name}[{i}] out of range (depth {self.depth})")
        return self.tiles[i]


def _normalise_mutex(mutex_ids) -> list[tuple[int, ...]] | None:
    if not mutex_ids:
        return None
    out = [(entry,) if isinstance(entry, int) else tuple(entry) for entry in mutex_ids]
    problem = mutex_slot_error(out)
    if problem is not None:
        raise KernelError(problem)
    return out


_ASSIGN_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=")


def assigned_name(where: Location | None) -> str | None:
    """Variable name on the declaring line (`x = pl.make_tile_group(...)`), for messages."""
    if where is None:
        return None
    m = _ASSIGN_RE.match(linecache.getline(where.file, where.line))
    return m.group(1) if m else None


def make_tile_group(owner, where: Location | None, *, type, addrs, mutex_ids=None, depth=None,
                    fwd_ids=None, bwd_ids=None) -> TileGroup:
    if not isinstance(type, TileType):
        raise KernelError("make_tile_group(type=...) must be a pl.TileType", where)
    mutex = _normalise_mutex(mutex_ids)
    if mutex is None and depth is None:
        raise KernelError("make_tile_group needs depth= when mutex_ids is empty", where)
    if mutex is not None and depth is not None and depth != len(mutex):
        raise KernelError(f"depth={depth} but {len(mutex)} mutex_ids entries", where)
    depth = len(mutex) if mutex is not None else int(depth)
    if depth <= 0:
        raise KernelError("tile group depth must be positive", where)
    try:
        addr_list = slot_addresses(addrs if isinstance(addrs, int) else list(addrs), depth, type.nbytes)
    except ValueError as exc:
        raise KernelError(str(exc), where) from None
    for ids in (fwd_ids, bwd_ids):
        if ids is not None and any(int(i) not in EVENT_IDS for i in ids):
            raise KernelError(f"cross-core event ids must be {EVENT_IDS.start}..{EVENT_IDS.stop - 1}, got {list(ids)}",
                              where)
    name = assigned_name(where) or f"group@{type.space}:{addr_list[0]:#x}"
    tiles = []
    for i, a in enumerate(addr_list):
        check_placement(type, a, type.nbytes, where)
        tiles.append(Tile(type, a, owner, mutex=mutex[i] if mutex else (), name=f"{name}[{i}]"))
    return TileGroup(tiles, name, fwd_ids, bwd_ids)


def make_tile(owner, where: Location | None, tile_type, *, addr, size=None) -> Tile:
    if not isinstance(tile_type, TileType):
        raise KernelError("make_tile's argument must be a pl.TileType", where)
    size = tile_type.nbytes if size is None else int(size)
    check_placement(tile_type, addr, size, where)
    name = assigned_name(where) or f"tile@{tile_type.space}:{addr:#x}"
    return Tile(tile_type, addr, owner, name=name)


# -- GM tensors --------------------------------------------------------------------------------

DYNAMIC = -1
STATIC = -2


@dataclass
class TensorSpec:
    """What `pl.Tensor[[d0, d1], dtype, layout]` evaluates to: an annotation, not data."""

    shape: tuple
    dtype: DType
    layout: Any = None


@dataclass
class PtrSpec:
    """What `pl.Ptr[dtype]` evaluates to: a raw GM pointer parameter."""

    dtype: DType


class PtrAnnotation:
    """`pl.Ptr`: subscriptable annotation factory."""

    def __class_getitem__(cls, item) -> PtrSpec:
        if not isinstance(item, DType):
            raise KernelError(f"pl.Ptr[dtype] expected, got pl.Ptr[{item!r}]")
        return PtrSpec(item)


class TensorAnnotation:
    """`pl.Tensor`: subscriptable annotation factory."""

    def __class_getitem__(cls, item) -> TensorSpec:
        if not isinstance(item, tuple) or len(item) < 2:
            raise KernelError("pl.Tensor[[shape], dtype(, layout)] expected")
        shape, dtype = item[0], item[1]
        dims = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
        return TensorSpec(dims, dtype, item[2] if len(item) > 2 else None)


class GMTensor:
    """A GM tensor a kernel sees: a kernel argument (a private copy of the caller's array) or a
    view of one (`pl.make_tensor`), sharing its bytes.

    `array` is the (possibly strided) numpy view; `root` is the byte buffer of the whole
    argument and `origin` the byte offset of element 0 in it, so footprints of every view of
    one argument are comparable."""

    def __init__(self, name: str, array: np.ndarray, dtype: DType, *, root: np.ndarray | None = None,
                 origin: int = 0, memkey: tuple | None = None):
        self.name = name
        self.array = array
        self.dtype = dtype
        self.root = array.reshape(-1).view(np.uint8) if root is None else root
        self.origin = origin
        self.memkey = memkey or ("GM", name)
        self.dims = array.shape  #: the shape the kernel sees (`pl.set_stride` keeps it)

    @property
    def shape(self) -> tuple:
        return self.dims

    @property
    def buf(self) -> np.ndarray:
        """The argument's bytes (for race snapshots), like `Memory.buf`."""
        return self.root

    def label(self) -> str:
        return f"GM tensor '{self.name}'"

    def element_offset(self, index: tuple) -> int:
        """Byte offset in `root` of the element at `index` (one int per dimension)."""
        return self.origin + sum(int(i) * s for i, s in zip(index, self.array.strides, strict=True))

    def __getitem__(self, key):
        """`t[i]` / `t[i, j]`: one element, read on pipe S (a scalar read of GM)."""
        return gm_element_access(self, key)

    def __setitem__(self, key, value) -> None:
        """`t[i] = v`: one element, written on pipe S."""
        gm_element_access(self, key, value, store=True)

    def __repr__(self) -> str:
        return f"<GM tensor {self.name} {list(self.shape)} {self.dtype.name}>"


class GMPointer:
    """`pl.Ptr[dtype]` at run time: a typed address into a GM argument (`addptr` moves it by
    elements, `make_ptr` re-types it, `make_tensor` views it)."""

    def __init__(self, name: str, root: np.ndarray, dtype: DType, origin: int = 0, memkey: tuple | None = None):
        self.name, self.root, self.dtype, self.origin = name, root, dtype, origin
        self.memkey = memkey or ("GM", name)

    def __repr__(self) -> str:
        return f"<GM pointer {self.name}+{self.origin} {self.dtype.name}>"


def gm_element_access(tensor: GMTensor, key, value=None, *, store: bool = False):
    """`v = t[i, ...]` / `t[i, ...] = v` on a GM tensor: getval/setval of that element."""
    where = caller(3)
    core = current_core()
    if core is None:
        raise KernelError("GM tensor element access outside a simulated kernel run", where)
    index = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, slice) for k in index):
        raise KernelError(f"GM tensor '{tensor.name}' cannot be sliced; use pl.load / pl.make_tensor", where)
    if len(index) != tensor.array.ndim:
        raise KernelError(f"GM tensor '{tensor.name}' of rank {tensor.array.ndim} indexed with {len(index)} "
                          "index(es)", where)
    for ax, (i, n) in enumerate(zip(index, tensor.array.shape, strict=True)):
        if not 0 <= int(i) < n:
            raise KernelError(f"index {int(i)} outside axis {ax} of GM tensor '{tensor.name}' "
                              f"{list(tensor.array.shape)}", where)
    flat = tuple(int(i) for i in index)
    if store:
        return core.machine.run_op(core, "setval", (tensor, flat, value), {}, where)
    return core.machine.run_op(core, "getval", (tensor, flat), {}, where)


# -- structs -----------------------------------------------------------------------------------

class TypedInt(int):
    """An integer of a `pl` dtype (`pl.const(0, pl.DT_INT32)`): computes as an int."""

    dtype: Any = None


class TypedFloat(float):
    """A float of a `pl` dtype (`pl.const(0.0, pl.DT_FP16)`): computes as a float."""

    dtype: Any = None


def typed_scalar(value: Any, dtype: Any) -> TypedInt | TypedFloat:
    """`value` converted to `dtype` as the device stores it (ints wrap, floats round, bf16 to its
    8 bits of mantissa), marked with the dtype. A NaN or a float out of an integer dtype's range
    converts as numpy's cast does, without its warning: the serial and the pipelined run convert
    alike, and the warning would only clutter the report."""
    with np.errstate(invalid="ignore", over="ignore"):
        stored = dtype.to_storage(np.asarray(value).astype(dtype.compute))
    plain = np.asarray(dtype.to_compute(np.asarray(stored))).item()
    out: TypedInt | TypedFloat = TypedFloat(plain) if isinstance(plain, float) else TypedInt(plain)
    out.dtype = dtype
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


class Struct:
    """`pl.struct("T", f=v, ...)`: a per-core mutable record; list fields are copied. PyPTO
    lowers it to a C++ struct whose fields take their initialiser's type: a field initialised
    with `pl.const(v, dtype)` holds values of that dtype, one initialised with an int holds
    integers (a float stored into it is truncated), so a value carried in a field of another
    type than its own changes as it would on the device."""

    def __init__(self, typename: str, fields: dict):
        # the struct's own records live under keys no field can be named (a field `_kinds` took
        # their place and broke every store: probe h110)
        state = vars(self)
        state[TYPENAME] = typename
        #: field -> the dtype, or `int`, its values are converted to
        state[KINDS] = {k: v.dtype if isinstance(v, (TypedInt, TypedFloat)) else int for k, v in fields.items()
                        if isinstance(v, (TypedInt, TypedFloat)) or type(v) is int}
        for k, v in fields.items():
            object.__setattr__(self, k, list(v) if isinstance(v, (list, tuple)) else v)

    def __setattr__(self, name: str, value: Any) -> None:
        kind = vars(self)[KINDS].get(name)
        if kind is not None and _number(value):
            value = int(value) if kind is int else typed_scalar(value, kind)
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"{vars(self)[TYPENAME]}({', '.join(f'{k}={v!r}' for k, v in struct_fields(self))})"


#: the keys of a struct's own records in its `__dict__`: not identifiers, so no field's name
TYPENAME, KINDS = "\0typename", "\0kinds"


def struct_fields(struct: Struct) -> list[tuple[str, Any]]:
    """A struct's fields and their values, in their order."""
    return [(k, v) for k, v in vars(struct).items() if not k.startswith("\0")]


class StructArray:
    """`pl.struct_array(n, "T", ...)`: n independent structs, indexable only."""

    def __init__(self, n: int, typename: str, fields: dict):
        if not isinstance(n, int) or n <= 0:
            raise KernelError(f"struct_array size must be a positive int, got {n!r}")
        self._items = [Struct(typename, fields) for _ in range(n)]
        self.typename = typename

    def __getitem__(self, i) -> Struct:
        if isinstance(i, slice):
            raise KernelError("struct_array does not support slicing")
        i = int(i)
        if not 0 <= i < len(self._items):
            raise KernelError(f"struct_array {self.typename}[{i}] out of range (size {len(self._items)})")
        return self._items[i]


def make_tuple(**fields) -> SimpleNamespace:
    return SimpleNamespace(**fields)
