"""The op call, the handler registry and the helpers every op family uses.

Roles (which positional tile is read or written) and pipes come from the shared op table in
`pto_api` so the emulator and the transpiler cannot disagree; ops act on the destination's
valid window, reading and writing every tile through its physical layout.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pto_api.memory import MEMORY_SPACES
from pto_api.ops import op_keyword_roles, op_pipe, op_roles
from pto_api.sync import unit_flag
from sim_runtime.errors import KernelError, Location, UnsupportedOpError
from sim_runtime.opplan import FlagUse, OpPlan
from sim_runtime.ops.costclass import op_cost
from sim_runtime.tiles import Tile


class OpCall:
    """One `pl.<name>(*args, **kwargs)` call on one core."""

    def __init__(self, machine, core, name: str, args: tuple, kwargs: dict, where: Location):
        self.m, self.core, self.name, self.args, self.kwargs, self.where = machine, core, name, args, kwargs, where

    def arg(self, i: int, kw: str | None = None, default=...):
        if i < len(self.args):
            return self.args[i]
        if kw is not None and kw in self.kwargs:
            return self.kwargs[kw]
        if default is not ...:
            return default
        raise KernelError(f"pl.{self.name}: missing argument {i + 1}{f' ({kw})' if kw else ''}", self.where)

    def tile(self, i: int, kw: str | None = None) -> Tile:
        t = self.arg(i, kw)
        if not isinstance(t, Tile):
            raise KernelError(f"pl.{self.name}: argument {i + 1} must be a tile, got {t!r}", self.where)
        return t

    def fail(self, msg: str) -> KernelError:
        return KernelError(f"pl.{self.name}: {msg}", self.where)


HANDLERS: dict[str, Callable[[OpCall], OpPlan]] = {}


def handles(*names: str):
    def deco(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return deco


# -- helpers ------------------------------------------------------------------------------------

def local(call: OpCall, tile: Tile, codes: bool = False):
    """The memory of `tile` as the calling core's own (no cross-core access through normal ops).
    `codes`: the op only moves elements between places of the same dtype, so an 8-bit float
    (stored as its codes) moves as its bytes; no other op takes the 8- and 4-bit floats."""
    owner = MEMORY_SPACES[tile.space].owner
    if owner != call.core.kind:
        raise call.fail(f"{tile.name} is in {tile.space} ({owner.upper()} memory); {call.core.name} cannot access it")
    if not tile.dtype.computable and not (codes and tile.dtype.bits == 8):
        raise UnsupportedOpError(f"pl.{call.name} on {tile.dtype.name} tiles is not implemented", call.where)
    return call.m.memory(tile.space, call.core)


def values(tile: Tile, mem, nr: int, nc: int, r0: int = 0, c0: int = 0) -> np.ndarray:
    return tile.read(mem, r0, c0, nr, nc)


def put(tile: Tile, mem, vals: np.ndarray, r0: int = 0, c0: int = 0) -> None:
    tile.write(mem, vals, r0, c0)


def fits(call: OpCall, tile: Tile, nr: int, nc: int, r0: int = 0, c0: int = 0) -> None:
    if r0 < 0 or c0 < 0 or r0 + nr > tile.shape[0] or c0 + nc > tile.shape[1]:
        raise call.fail(f"window [{r0}:{r0 + nr}, {c0}:{c0 + nc}] does not fit {tile.name} {list(tile.shape)}")


def roles_of(name: str) -> tuple:
    r = op_roles(name)
    if r is None:
        raise UnsupportedOpError(f"no role table entry for pl.{name}")
    return r


def pipe_of(name: str, where: Location | None = None) -> str:
    p = op_pipe(name)
    if p is None:
        raise UnsupportedOpError(f"no pipe known for pl.{name}", where)
    return p


def mutex_of(call: OpCall) -> tuple:
    """The auto_mutex ids of the call's positional tiles; with a `phase=`, none of its Acc
    tiles' (the unit flag orders the matmul and the store instead, `pto_api.sync.UNIT_FLAG`)."""
    phased = _phase(call)[1] is not None
    ids: list[int] = []
    for a in call.args:
        if isinstance(a, Tile) and not (phased and a.space == "Acc"):
            ids.extend(a.mutex)
    return tuple(dict.fromkeys(ids))


def _phase(call: OpCall) -> tuple[str, tuple[int, int | None] | None]:
    """How reports name the call's `phase=`, and what it waits for and sets (None: no phase)."""
    phase = call.kwargs.get("phase")
    if phase is None:  # (every op asks, through `mutex_of`)
        return "", None
    name = getattr(phase, "name", phase)
    try:
        use = unit_flag(call.name, name)
    except ValueError as exc:
        raise call.fail(str(exc)) from None
    return f"{type(phase).__name__}.{name}", use


def flag_of(call: OpCall, acc: Tile) -> FlagUse | None:
    """The call's use of the unit flag of `acc`'s region (its declared bytes), if it has a phase."""
    text, use = _phase(call)
    if use is None:
        return None
    if acc.space != "Acc":
        raise call.fail(f"phase= orders the access to an Acc tile; {acc.name} is in {acc.space}")
    return FlagUse((acc.addr, acc.addr + acc.type.nbytes), *use, text)


def vector_plan(call: OpCall, table_name: str, run: Callable, accesses: list | None = None) -> OpPlan:
    """Plan of a V-pipe op: its accesses follow the role table (each tile's valid window)
    unless given; its cost comes from its op class and its widest operand."""
    roles = roles_of(table_name)
    keyed = op_keyword_roles(table_name)
    tiles = [(a, roles[i] if i < len(roles) else None) for i, a in enumerate(call.args)]
    tiles += [(call.kwargs[k], role) for k, role in keyed.items() if k in call.kwargs]
    found, nbytes = [], 0
    for a, role in tiles:
        if not isinstance(a, Tile):
            continue
        mem = local(call, a)
        nbytes = max(nbytes, a.valid[0] * a.valid[1] * a.dtype.itemsize)
        if role:
            fp = a.valid_footprint(mem)
            if "R" in role:
                found.append((mem, fp, "R"))
            if "W" in role:
                found.append((mem, fp, "W"))

    def guarded():
        with np.errstate(all="ignore"):
            run()

    return OpPlan(pipe_of(table_name, call.where), op_cost(call.name, nbytes), guarded,
                  found if accesses is None else accesses, mutex_of(call))


def scalar_like(tile: Tile, s):
    return np.asarray(s).astype(tile.dtype.compute)
