"""What ops do to the machine, defined once for the checker and the emulator.

The static checker (`pto_transpile.soundness`) and the emulator (`sim_runtime`) are two
interpreters of the same kernel language that cross-check each other; whatever one says an
op does, the other must say too. So every rule both need (which cores a barrier joins, where
an Acc->Vec move lands, which slot a tile-group accessor picks, the slot addresses of a group,
the depth of an event counter) lives here, and both drivers call it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pto_api.sync import MAX_OUTSTANDING_SETS

C = TypeVar("C")  #: a vector clock: a tuple (checker) or a numpy array (emulator)

# -- barriers --------------------------------------------------------------------------------

#: `pl.system.sync_all(core_type=...)`: the core kinds ("aic", "aiv") a barrier joins. A barrier
#: also waits for every pipe of each joined core, so AIC_ONLY orders nothing across cores and
#: AIV_ONLY orders the two vector cores of a block only with each other.
BARRIER_CORE_KINDS: dict[str, tuple[str, ...]] = {
    "MIX": ("aic", "aiv"),
    "AIV_ONLY": ("aiv",),
    "AIC_ONLY": ("aic",),
}
#: `core_type` when the call names none.
DEFAULT_BARRIER = "MIX"


def barrier_kinds(core_type: str | None) -> tuple[str, ...] | None:
    """The core kinds a `sync_all` of `core_type` joins; None for a type that does not exist.
    Barriers of one type are matched by count: the n-th of that type on every joined core."""
    return BARRIER_CORE_KINDS.get(DEFAULT_BARRIER if core_type is None else core_type)


# -- event counters --------------------------------------------------------------------------

#: Sets a cross-core counter holds before it overflows (re-exported: one name for both sides).
COUNTER_DEPTH = MAX_OUTSTANDING_SETS


# -- Acc -> Vec moves ------------------------------------------------------------------------

#: Vector sub-cores (0 = AIV0, 1 = AIV1) an Acc->Vec `pl.move` writes, per `acc_to_vec_mode`.
ACC_TO_VEC_TARGETS: dict[str, tuple[int, ...]] = {
    "SingleModeVec0": (0,),
    "SingleModeVec1": (1,),
    "DualModeSplitM": (0, 1),
    "DualModeSplitN": (0, 1),
}
#: No default is documented. The emulator must run one mode and runs this one (with a
#: warning); the checker cannot know which, so it takes the move as one that may write either.
ACC_TO_VEC_ASSUMED_DEFAULT = "SingleModeVec0"


def acc_to_vec_targets(mode: str | None) -> tuple[tuple[int, ...], bool]:
    """(sub-cores written, certain): with no mode (or one not known), both and not certain."""
    if mode not in ACC_TO_VEC_TARGETS:
        return (0, 1), False
    return ACC_TO_VEC_TARGETS[mode], True


def source_window(how: str, src: tuple, dst: tuple, src_valid: tuple, dst_valid: tuple, src_memory: str,
                  dst_memory: str, acc_mode: str | None) -> tuple | None:
    """The window (rows, cols) at the destination's origin that an op of `ops.SOURCE_WINDOW_OPS`
    writes, from the source's valid shape; None where it is not known. A move: from Acc to Vec
    the source's window, each AIV half of it by rows (DualModeSplitM, rows rounded up to even)
    or by columns (DualModeSplitN, columns rounded up to 32); Vec to Vec the smaller of the two
    valid windows; otherwise the source's window, transposed where the shapes are swapped."""
    if len(src_valid) != 2 or len(dst_valid) != 2:
        return None
    rows, cols = src_valid
    if how == "same":
        return rows, cols
    if how == "swap":
        return cols, rows
    if how == "rows":
        return rows, 1
    if how == "cols":
        return 1, cols
    if (src_memory, dst_memory) == ("Acc", "Vec"):
        if acc_mode == "DualModeSplitM":
            return -(-rows // 2), cols
        if acc_mode == "DualModeSplitN":
            return rows, -(-cols // 32) * 32 // 2
        return (rows, cols) if acc_mode in ACC_TO_VEC_TARGETS else None
    if (src_memory, dst_memory) == ("Vec", "Vec"):
        return min(rows, dst_valid[0]), min(cols, dst_valid[1])
    return (cols, rows) if tuple(dst) != tuple(src) else (rows, cols)


# -- tile groups -----------------------------------------------------------------------------

#: The cursor of a fresh group: its first `next()` gives slot 0.
def initial_cursor(depth: int) -> int:
    return depth - 1


def pick_slot(cursor: int, accessor: str, depth: int) -> tuple[int, int]:
    """(new cursor, slot) for `group.next()`, `.current()` or `.previous()`; a one-slot group
    always gives slot 0 and never moves."""
    if depth == 1:
        return cursor, 0
    if accessor == "next":
        cursor += 1
        return cursor, cursor % depth
    if accessor == "current":
        return cursor, cursor % depth
    if accessor == "previous":
        return cursor, (cursor + depth - 1) % depth
    raise ValueError(f"not a tile-group accessor: {accessor}")


def slot_addresses(addrs: int | list[int] | tuple[int, ...], depth: int, nbytes: int) -> list[int]:
    """First byte of each slot of `pl.make_tile_group(addrs=...)`: one int is the first slot,
    the rest follow back to back; a list gives one address per slot (ValueError when its
    length is not the depth)."""
    if isinstance(addrs, int):
        return [addrs + i * nbytes for i in range(depth)]
    out = list(addrs)
    if len(out) != depth:
        raise ValueError(f"{len(out)} addrs for a group of depth {depth}")
    return out


# -- what a wait on a counter knows ----------------------------------------------------------

def after_sets(k: int, totals: dict[str, int], clock_of: Callable[[str, int], C],
               join: Callable[[C, C], C], meet: Callable[[C, C], C], zero: C) -> C:
    """What the k-th wait on one counter may rely on. A counter only counts: the k-th wait
    returns once k sets have completed. Sets raised from one pipe complete in that pipe's
    order, sets from different pipes in any order; so for some split `k = sum(a[p])` the first
    `a[p]` sets of each pipe `p` (of `totals[p]` that can complete by then) have completed.
    The answer is the meet over the splits of the join of `clock_of(p, a[p])`, the clock the
    a-th set of pipe p carries (`clock_of(p, 0)` is `zero`)."""
    pipes = sorted(totals)
    if len(pipes) == 1:
        return clock_of(pipes[0], k)
    result: C | None = None

    def splits(i: int, left: int, acc: C) -> None:
        nonlocal result
        p = pipes[i]
        if i == len(pipes) - 1:
            if left <= totals[p]:
                vc = join(acc, clock_of(p, left))
                result = vc if result is None else meet(result, vc)
            return
        for a in range(0, min(left, totals[p]) + 1):
            splits(i + 1, left - a, join(acc, clock_of(p, a)))

    splits(0, k, zero)
    return result if result is not None else zero


# -- tile layouts ----------------------------------------------------------------------------

#: A tile's layout when its `TileType` names none, per memory space (A5).
DEFAULT_LAYOUT: dict[str, str] = {
    "Vec": "ND", "Mat": "NZ", "Left": "NZ", "Right": "ZN", "Acc": "NZ",
    "Scaling": "ND", "ScaleLeft": "ZZ", "ScaleRight": "NN", "Bias": "ND",
}


# -- atomic stores ---------------------------------------------------------------------------

#: `pl.store(..., atomic=AtomicType.<member>)`, by member: the reduction the store applies to
#: what GM holds (None: it replaces it). The emulator's `pl.AtomicType` has these members.
ATOMIC_REDUCTIONS: dict[str, str | None] = {"AtomicNone": None, "AtomicAdd": "add"}


def store_adds(atomic: str | None) -> bool:
    """Whether a store given `atomic=AtomicType.<atomic>` adds the tile to what GM holds (a read
    of its window as well as a write) instead of replacing it."""
    return ATOMIC_REDUCTIONS.get(atomic or "AtomicNone") == "add"


def atomic_class(atomic: str | None, dtype: str) -> tuple[str, str] | None:
    """What a store given `atomic=AtomicType.<atomic>` of `dtype` elements commutes with; None
    for a plain store. GM performs an atomic store as one read-modify-write per element, so two
    of the same reduction and element type on the same bytes do not race, whatever cores issue
    them (their order changes only the rounding); against a plain store or read, or an atomic
    store of another reduction or element type, the kernel must order them."""
    reduction = ATOMIC_REDUCTIONS.get(atomic or "AtomicNone")
    return None if reduction is None else (reduction, dtype)


# -- valid shapes ----------------------------------------------------------------------------

def initial_valid(shape: tuple[int, int] | list[int], valid_shape) -> tuple[int, int]:
    """A tile's valid shape when declared: `TileType(valid_shape=...)`, where a missing, None
    or negative entry means the declared extent of that axis; ValueError past the declared
    extent (a tile holds no more than it declares, as `set_valid` says of a later change)."""
    if valid_shape is None:
        return (shape[0], shape[1])
    r, c = (s if (v is None or v < 0) else int(v) for v, s in zip(valid_shape, shape, strict=True))
    if r > shape[0] or c > shape[1]:
        raise ValueError(f"valid shape [{r}, {c}] past the declared [{shape[0]}, {shape[1]}]")
    return (r, c)


def set_valid(shape: tuple[int, int] | list[int], new) -> tuple[int, int]:
    """The valid shape `pl.set_validshape(tile, new)` gives a tile of declared `shape` (the
    descriptor only: no data moves); ValueError outside `[1, shape]`."""
    r, c = (int(x) for x in new)
    if not (1 <= r <= shape[0] and 1 <= c <= shape[1]):
        raise ValueError(f"valid shape [{r}, {c}] outside the declared [{shape[0]}, {shape[1]}]")
    return (r, c)


def gm_extent(valid: tuple[int, int] | list[int], transposed: bool) -> tuple[int, int]:
    """(rows, columns) of the GM window a `pl.load`/`pl.store` of a tile moves: the tile's
    valid shape, swapped when the transfer transposes (`order=[1, 0]`, `is_transpose=True`)."""
    return (valid[1], valid[0]) if transposed else (valid[0], valid[1])


# -- pl.insert -------------------------------------------------------------------------------

#: One DataBlock: what `pl.insert` (TINSERT) copies, one per row of a column block.
BLOCK_BYTES = 32


def insert_blocks(src_rows: int, src_valid: tuple[int, int] | list[int], itemsize: int,
                  dst_shape: tuple[int, int] | list[int], dst_layout: str,
                  offset: tuple[int, int] | list[int]) -> tuple[list[int], list[int], int]:
    """The bytes `pl.insert(dst, src, [row, col])` reads and writes: a physical copy of the
    32-byte blocks of an NZ source (declared `src_rows` rows) into an NZ or ZN destination.

    Returns (source run starts, destination run starts, run length), offsets from each
    tile's first byte. Source column block j (its valid rows: a padding row is skipped) lands
    at element `(col // C0 + j) * R * C0 + row * C0 + col % C0` of the destination seen as NZ
    with R rows (a ZN `[R, C]` tile is the NZ `[C, R]` tile of the transpose), C0 = 32 /
    itemsize. ValueError when the source does not fit."""
    sr, sc = src_valid
    row, col = offset
    c0 = BLOCK_BYTES // itemsize
    view_rows, view_cols = (dst_shape[0], dst_shape[1]) if dst_layout == "NZ" else (dst_shape[1], dst_shape[0])
    if row < 0 or col < 0 or row + sr > view_rows or col + sc > view_cols:
        raise ValueError(f"[{sr}, {sc}] source at [{row}, {col}] does not fit the destination "
                         f"(as NZ [{view_rows}, {view_cols}])")
    blocks = -(-sc // c0)
    run = sr * BLOCK_BYTES
    src = [j * src_rows * BLOCK_BYTES for j in range(blocks)]
    dst = [((col // c0 + j) * view_rows * c0 + row * c0 + col % c0) * itemsize for j in range(blocks)]
    if dst and dst[-1] + run > dst_shape[0] * dst_shape[1] * itemsize:
        raise ValueError("the last block would end past the destination")
    return src, dst, run
