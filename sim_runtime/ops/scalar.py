"""Scalar access to tiles and GM on pipe S, and descriptor-only ops."""

from __future__ import annotations

import numpy as np

from pto_api.effects import set_valid
from sim_runtime import costs
from sim_runtime.errors import KernelError, Location, UnsupportedOpError
from sim_runtime.memory import Footprint
from sim_runtime.opplan import OpPlan
from sim_runtime.ops.base import (
    OpCall,
    handles,
    local,
    mutex_of,
)
from sim_runtime.tiles import GMTensor, Tile, TileGroup

# -- scalar access ------------------------------------------------------------------------------

def _element(call: OpCall, container, offset):
    """(memory, byte footprint, getter, setter) of one element addressed by a linear offset
    from the container's data pointer (for a tile: raw, whatever its layout)."""
    if isinstance(container, GMTensor):
        arr = container.array
        # an index per axis is a linear offset row-major over the declared shape, as the hardware
        # computes it: `(r, width)` is the first element of row r + 1, and `(-1, 0)` lies before the
        # tensor, not in its last row (as a Python index would)
        off = int(offset) if not isinstance(offset, tuple) else sum(
            int(i) * int(np.prod(arr.shape[k + 1:], dtype=np.int64)) for k, i in enumerate(offset))
        if isinstance(offset, tuple) and len(offset) != arr.ndim:
            raise call.fail(f"index {offset} of {len(offset)} axes into GM tensor '{container.name}' of rank "
                            f"{arr.ndim}")
        if not 0 <= off < arr.size:
            raise call.fail(f"offset {off} outside GM tensor '{container.name}' of {arr.size} elements")
        index = np.unravel_index(off, arr.shape)
        if not container.dtype.computable:
            raise UnsupportedOpError(f"pl.{call.name} on {container.dtype.name} elements is not implemented",
                                     call.where)
        at = container.element_offset(index)
        size = arr.itemsize
        cell = container.root[at:at + size].view(arr.dtype)
        fp = Footprint.make(container.memkey, at, size, 1, size)
        dt = container.dtype
        return (container, fp, lambda: dt.to_compute(cell)[0].item(),
                lambda v: cell.__setitem__(0, dt.to_storage(np.asarray([v], dtype=dt.compute))[0]))
    off = int(offset)
    if isinstance(container, Tile):
        mem = local(call, container)
        flat = container.elements(mem)
        dt = container.dtype
        idx = (container.pointer - container.addr) // dt.itemsize + off
        if not 0 <= idx < flat.size:
            raise call.fail(f"element offset {off} outside tile {container.name} {list(container.type.shape)}")
        fp = Footprint.make(mem.key, container.addr + idx * dt.itemsize, dt.itemsize, 1, dt.itemsize)
        return (mem, fp, lambda: dt.to_compute(flat[idx:idx + 1])[0].item(),
                lambda v: flat.__setitem__(slice(idx, idx + 1), dt.to_storage(np.asarray([v], dtype=dt.compute))))
    raise call.fail(f"expected a tile or GM tensor, got {container!r}")


@handles("getval")
def getval(call: OpCall) -> OpPlan:
    mem, fp, get, _ = _element(call, call.arg(0), call.arg(1))
    return OpPlan("S", costs.COSTS.scalar, get, [(mem, fp, "R")], mutex_of(call))


@handles("setval")
def setval(call: OpCall) -> OpPlan:
    mem, fp, _, set_ = _element(call, call.arg(0), call.arg(1))
    value = call.arg(2)
    return OpPlan("S", costs.COSTS.scalar, lambda: set_(value), [(mem, fp, "W")], mutex_of(call))


def set_validshape(target, shape, where: Location | None = None) -> None:
    """Descriptor-only (no data, no mutex, no sync): valid shape of a tile or of every slot."""
    tiles = target.tiles if isinstance(target, TileGroup) else [target]
    for t in tiles:
        if not isinstance(t, Tile):
            raise KernelError(f"set_validshape needs a tile or tile group, got {target!r}", where)
        try:
            t.valid = list(set_valid(t.shape, shape))
        except ValueError as exc:
            raise KernelError(f"tile {t.name}: {exc}", where) from None


@handles("get_spr")
def get_spr(call: OpCall) -> OpPlan:
    """The AR special register of the calling core: the byte count the last
    `vf.squeeze(..., STORE_REG)` left there (0 before any, or after `vf.clear_spr`)."""
    return OpPlan("S", costs.COSTS.scalar, lambda: int(call.m.address_registers.get(call.core.name, 0)))
