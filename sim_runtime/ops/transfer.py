"""Data movement: GM <-> tile (load, store) and tile <-> tile (move, insert)."""

from __future__ import annotations

import numpy as np

from pto_api.effects import ACC_TO_VEC_ASSUMED_DEFAULT, acc_to_vec_targets, atomic_class, insert_blocks
from pto_api.ops import ACC_TO_VEC_MODES, MOVE_PAIRS, move_pipe, store_pipe
from sim_runtime import costs
from sim_runtime.errors import UnsupportedOpError
from sim_runtime.memory import Footprint
from sim_runtime.opplan import OpPlan
from sim_runtime.ops.base import (
    OpCall,
    fits,
    flag_of,
    handles,
    local,
    mutex_of,
    pipe_of,
    put,
    values,
)
from sim_runtime.tiles import GMTensor, Tile, TileLayout

# -- GM <-> tile -----------------------------------------------------------------------------

def _gm_window(call: OpCall, tensor, offsets, nr: int, nc: int, order, tile: Tile):
    """numpy index, transposed flag and byte footprint of a 2-D window of a GM tensor."""
    if not isinstance(tensor, GMTensor):
        raise call.fail(f"expected a GM tensor (pl.Tensor parameter), got {tensor!r}")
    arr = tensor.array
    nd = arr.ndim
    offsets = [int(o) for o in offsets]
    if len(offsets) != nd:
        raise call.fail(f"{len(offsets)} offsets for GM tensor '{tensor.name}' of rank {nd}")
    if nd < 2:
        raise UnsupportedOpError(f"pl.{call.name} on a rank-1 tensor is not implemented", call.where)
    a0, a1 = (list(order) if order is not None else [nd - 2, nd - 1])
    extent = {a0: nr, a1: nc}
    index = []
    for ax in range(nd):
        o, n = offsets[ax], extent.get(ax, 1)
        if o < 0 or o + n > arr.shape[ax]:
            raise call.fail(
                f"GM tensor '{tensor.name}' of shape {list(arr.shape)} accessed at offsets {offsets} with a "
                f"[{nr}, {nc}] window of tile {tile.name} (shape {list(tile.shape)}, valid {tile.valid}): "
                f"axis {ax} range [{o}, {o + n}) is out of bounds")
        index.append(slice(o, o + n) if ax in extent else o)
    base = tensor.element_offset(tuple(offsets))
    fp = strided_footprint(tensor.memkey, base, [(extent[a0], arr.strides[a0]), (extent[a1], arr.strides[a1])],
                           arr.itemsize)
    return tuple(index), a0 > a1, fp


def strided_footprint(key: tuple, base: int, axes: list[tuple[int, int]], itemsize: int) -> Footprint:
    """The bytes of a window of a strided GM view: `axes` are (count, byte stride) pairs."""
    (n_in, s_in), (n_out, s_out) = sorted(axes, key=lambda a: (a[0] > 1, a[1]))
    if n_in == 1 or s_in == itemsize:
        width = (n_in - 1) * s_in + itemsize
        return Footprint.make(key, base, s_out, n_out, width) if n_out > 1 else Footprint.make(key, base, 1, 1, width)
    starts = (base + np.arange(n_in)[None, :] * s_in + np.arange(n_out)[:, None] * s_out).reshape(-1)
    return Footprint.of(key, starts, starts + itemsize)


def _tile_offsets(call: OpCall, tile: Tile, tile_offsets, order, nd: int) -> list[int]:
    """load_tile/store_tile: tile-block indices times the tile extent (with the sorted-order quirk)."""
    order = list(order) if order is not None else [nd - 2, nd - 1]
    srt = sorted(order)
    return [int(o) * tile.shape[srt.index(ax)] if ax in order else int(o) for ax, o in enumerate(tile_offsets)]


@handles("load", "load_tile")
def load(call: OpCall) -> OpPlan:
    """GM -> tile over dst's valid window, written through dst's layout. `order=[1, 0]` (or
    `is_transpose=True`) swaps the GM strides: dst(i, j) = tensor[o0 + j, o1 + i], which into
    a ZN L1 tile gives the bytes of a plain load of the block into NZ."""
    dst, tensor = call.tile(0), call.arg(1)
    if dst.space not in ("Vec", "Mat"):
        raise call.fail(f"destination must be in Vec or Mat, not {dst.space}")
    mem = local(call, dst, codes=getattr(tensor, "dtype", None) is dst.dtype)
    order = call.kwargs.get("order")
    if call.kwargs.get("is_transpose"):
        if order is not None or not isinstance(tensor, GMTensor) or tensor.array.ndim != 2:
            raise call.fail("is_transpose=True needs a 2-D tensor and no order=")
        order = [1, 0]
    offsets = call.arg(2, "offsets")
    if call.name == "load_tile":
        offsets = _tile_offsets(call, dst, offsets, order, len(offsets))
    vr, vc = dst.valid
    index, flip, gfp = _gm_window(call, tensor, offsets, vr, vc, order, dst)

    def run():
        data = tensor.dtype.to_compute(tensor.array[index])
        put(dst, mem, np.asarray(data.T if flip else data).astype(dst.dtype.compute))

    nbytes = vr * vc * dst.dtype.itemsize
    pipe = pipe_of(call.name)
    return OpPlan(pipe, costs.dma_cost(pipe, nbytes), run,
                  [(tensor, gfp, "R"), (mem, dst.footprint(mem, 0, 0, vr, vc), "W")], mutex_of(call))


@handles("store", "store_tile")
def store(call: OpCall) -> OpPlan:
    tensor, src = call.arg(0), call.tile(1)
    if src.space not in ("Vec", "Acc"):
        raise call.fail(f"source must be in Vec or Acc, not {src.space} (Mat -> GM is not allowed)")
    plain = not any(call.kwargs.get(k) is not None for k in ("relu_pre_mode", "scale", "atomic"))
    mem = local(call, src, codes=plain and getattr(tensor, "dtype", None) is src.dtype)
    order = call.kwargs.get("order")
    if order is not None and list(order) != sorted(order):
        raise call.fail(f"store order must be ascending, got {list(order)}")
    offsets = call.arg(2, "offsets")
    if call.name == "store_tile":
        offsets = _tile_offsets(call, src, offsets, order, len(offsets))
    vr, vc = src.valid
    index, _, gfp = _gm_window(call, tensor, offsets, vr, vc, order, src)
    atomic = atomic_class(getattr(call.kwargs.get("atomic"), "name", None), tensor.dtype.name)
    relu = call.kwargs.get("relu_pre_mode") is not None
    scale = call.kwargs.get("scale")
    if scale is not None and not isinstance(scale, (int, float)):
        raise UnsupportedOpError("pl.store with a non-constant scale is not implemented", call.where)

    def run():
        v = values(src, mem, vr, vc)
        if relu:
            v = np.maximum(v, 0)
        if scale is not None:
            v = v * np.float32(scale)
        if atomic:  # GM reads, reduces and writes each element itself (see sim_runtime.atomics)
            call.m.atomics.hold(call.core.index, atomic, tensor, index, v)
        else:
            tensor.array[index] = tensor.dtype.to_storage(np.asarray(v).astype(tensor.dtype.compute))

    accesses = [(mem, src.footprint(mem, 0, 0, vr, vc), "R"), (tensor, gfp, "W", atomic)]
    if atomic:
        accesses.insert(0, (tensor, gfp, "R", atomic))
    pipe = store_pipe(src.space)
    return OpPlan(pipe, costs.dma_cost(pipe, vr * vc * src.dtype.itemsize), run, accesses, mutex_of(call),
                  flag=flag_of(call, src))


# -- tile <-> tile -----------------------------------------------------------------------------


def _round_up(x: int, m: int) -> int:
    return (x + m - 1) // m * m


@handles("move")
def move(call: OpCall) -> OpPlan:
    """Tile to tile: Mat -> L0 and Vec -> Mat are logical copies between equal (or swapped,
    a transpose) declared shapes; Vec -> Vec copies the window both valid shapes cover;
    with `offset`, a smaller destination extracts and a bigger one inserts."""
    dst, src = call.tile(0), call.tile(1)
    pair = (src.space, dst.space)
    if pair not in MOVE_PAIRS:
        raise call.fail(f"move from {src.space} to {dst.space} is not supported by the front end")
    if pair == ("Acc", "Vec"):
        return _acc_to_vec(call, dst, src)
    offset = call.arg(2, "offset", None)
    if offset is not None and (dst.shape[0] > src.shape[0] or dst.shape[1] > src.shape[1]):
        return insert(call, (dst, src, offset))  # a bigger destination makes move an insert
    same = src.dtype is dst.dtype
    ms = local(call, src, codes=same)
    md = call.m.owner_memory(dst.space, call.core) if pair == ("Vec", "Mat") else local(call, dst, codes=same)
    if offset is not None:  # extract: dst[i, j] = src[r + i, c + j]
        r, c = int(offset[0]), int(offset[1])
        nr, nc = dst.valid
        fits(call, src, nr, nc, r, c)
        flip = False
    elif pair == ("Vec", "Vec"):  # row by row over both valid windows, each side in its own layout
        r = c = 0
        nr, nc = min(src.valid[0], dst.valid[0]), min(src.valid[1], dst.valid[1])
        flip = False
    else:
        r = c = 0
        nr, nc = src.valid
        flip = tuple(dst.shape) != tuple(src.shape)
        if flip and tuple(dst.shape) != tuple(src.shape)[::-1]:
            raise call.fail(f"shapes {list(src.shape)} -> {list(dst.shape)} are neither equal nor swapped")
    fits(call, dst, *((nc, nr) if flip else (nr, nc)))

    def run():
        v = values(src, ms, nr, nc, r, c)
        put(dst, md, (v.T if flip else v).astype(dst.dtype.compute))

    pipe = move_pipe(src.space, dst.space)
    wr = dst.footprint(md, 0, 0, *((nc, nr) if flip else (nr, nc)))
    return OpPlan(pipe, costs.dma_cost(pipe, nr * nc * src.dtype.itemsize), run,
                  [(ms, src.footprint(ms, r, c, nr, nc), "R"), (md, wr, "W")], mutex_of(call))


def _acc_to_vec(call: OpCall, dst: Tile, src: Tile) -> OpPlan:
    """AIC fixpipe move: the data lands in the UB of the AIV(s) of this block, per `acc_to_vec_mode`."""
    ms = local(call, src)
    mode = getattr(call.kwargs.get("acc_to_vec_mode"), "name", call.kwargs.get("acc_to_vec_mode"))
    if mode is None:
        mode = ACC_TO_VEC_ASSUMED_DEFAULT
        call.m.warnings.append(f"{call.where}: Acc->Vec move without acc_to_vec_mode; assumed {mode}")
    if mode not in ACC_TO_VEC_MODES:
        raise call.fail(f"unknown acc_to_vec_mode {mode!r}")
    mv, nv = src.valid
    aivs = call.m.aivs_of(call.core.block)
    # which sub-cores receive data is `acc_to_vec_targets`; how the window splits is below
    if mode == "DualModeSplitM":
        ma = _round_up(mv, 2)
        h = ma // 2
        parts = [(0, 0, 0, h, nv), (1, h, 0, h, nv)]
    elif mode == "DualModeSplitN":
        na = _round_up(nv, 32)
        h = na // 2
        parts = [(0, 0, 0, mv, h), (1, 0, h, mv, h)]
    else:
        parts = [(acc_to_vec_targets(mode)[0][0], 0, 0, mv, nv)]
    relu = call.kwargs.get("relu_pre_mode") is not None
    scale = call.kwargs.get("scale")
    if scale is not None and not isinstance(scale, (int, float)):
        raise UnsupportedOpError("Acc->Vec move with a per-channel scale tile is not implemented", call.where)
    accesses, writes = [], []
    for s, r0, c0, nr, nc in parts:
        fits(call, src, nr, nc, r0, c0)
        fits(call, dst, nr, nc)
        if s >= len(aivs):
            raise call.fail(f"{mode} needs AIV{s} but the block has {len(aivs)} vector core(s)")
        mem = call.m.memory("Vec", aivs[s])
        accesses.append((ms, src.footprint(ms, r0, c0, nr, nc), "R"))
        accesses.append((mem, dst.footprint(mem, 0, 0, nr, nc), "W"))
        writes.append((mem, r0, c0, nr, nc))

    def run():
        for mem, r0, c0, nr, nc in writes:
            v = values(src, ms, nr, nc, r0, c0)
            if relu:
                v = np.maximum(v, 0)
            if scale is not None:
                v = v * np.float32(scale)
            put(dst, mem, np.asarray(v).astype(dst.dtype.compute))

    nbytes = mv * nv * src.dtype.itemsize
    pipe = move_pipe("Acc", "Vec")
    return OpPlan(pipe, costs.dma_cost(pipe, nbytes), run, accesses, mutex_of(call))


@handles("insert")
def insert(call: OpCall, explicit: tuple | None = None) -> OpPlan:
    """AIV UB (NZ) -> AIC L1, a physical copy of 32-byte blocks (TINSERT); which blocks it
    reads and writes is `pto_api.effects.insert_blocks`, the checker's definition too. Into ZN
    this is a transpose: `dst[col + j, row + i] = src[i, j]`."""
    dst, src, offset = explicit if explicit else (call.tile(0), call.tile(1), call.arg(2, "offset"))
    if dst.space != "Mat" or src.space != "Vec":
        raise call.fail(f"insert copies Vec -> Mat, got {src.space} -> {dst.space}")
    if src.layout is not TileLayout.NZ:
        raise call.fail(f"insert needs an NZ source tile; {src.name} is {src.layout.name} (move it to NZ first)")
    if dst.layout not in (TileLayout.NZ, TileLayout.ZN):
        raise call.fail(f"insert needs an NZ or ZN destination; {dst.name} is {dst.layout.name}")
    if dst.dtype is not src.dtype:
        raise call.fail(f"insert copies bytes: {src.name} is {src.dtype.name} but {dst.name} is {dst.dtype.name}")
    ms = local(call, src)
    md = call.m.owner_memory("Mat", call.core)
    try:
        src_off, dst_off, run = insert_blocks(src.type.shape[0], src.valid, src.dtype.itemsize, dst.type.shape,
                                              dst.layout.name, (int(offset[0]), int(offset[1])))
    except ValueError as exc:
        raise call.fail(f"{src.name} into {dst.name} {list(dst.type.shape)}: {exc}") from None
    src_starts = src.addr + np.asarray(src_off, np.int64)
    dst_starts = dst.addr + np.asarray(dst_off, np.int64)
    blocks = len(src_off)

    def run_copy():
        for s0, d0 in zip(src_starts.tolist(), dst_starts.tolist(), strict=True):
            md.buf[d0:d0 + run] = ms.buf[s0:s0 + run]

    pipe = move_pipe("Vec", "Mat")
    return OpPlan(pipe, costs.dma_cost(pipe, blocks * run), run_copy,
                  [(ms, Footprint.of(ms.key, src_starts, src_starts + run), "R"),
                   (md, Footprint.of(md.key, dst_starts, dst_starts + run), "W")], mutex_of(call))
