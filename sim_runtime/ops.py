"""Block ops: numpy semantics, accesses, pipe and cost of every `pl.<op>` the emulator runs.

Roles (which positional tile is read or written) and pipes come from the shared op table in
`pto_api` so the emulator and the transpiler cannot disagree. Level 1 memory: every tile holds its
values in logical row-major order, ops act on the destination's valid window.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pto_api.memory import MEMORY_SPACES
from pto_api.ops import ACC_TO_VEC_MODES, MOVE_PAIRS, move_pipe, op_pipe, op_roles, store_pipe
from sim_runtime import assumed, costs, layouts, rounding
from sim_runtime.errors import KernelError, Location, UnsupportedOpError
from sim_runtime.memory import Footprint
from sim_runtime.opplan import OpPlan
from sim_runtime.tiles import GMTensor, Tile, TileGroup, TileLayout


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

def local(call: OpCall, tile: Tile):
    """The memory of `tile` as the calling core's own (no cross-core access through normal ops)."""
    owner = MEMORY_SPACES[tile.space].owner
    if owner != call.core.kind:
        raise call.fail(f"{tile.name} is in {tile.space} ({owner.upper()} memory); {call.core.name} cannot access it")
    if not tile.dtype.computable:
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
    ids: list[int] = []
    for a in call.args:
        if isinstance(a, Tile):
            ids.extend(a.mutex)
    return tuple(dict.fromkeys(ids))


def vector_plan(call: OpCall, table_name: str, run: Callable) -> OpPlan:
    """Plan of a V-pipe op whose accesses follow the role table (each tile's valid window)."""
    roles = roles_of(table_name)
    accesses, nbytes = [], 0
    for i, a in enumerate(call.args):
        if not isinstance(a, Tile):
            continue
        mem = local(call, a)
        nbytes = max(nbytes, a.valid[0] * a.valid[1] * a.dtype.itemsize)
        role = roles[i] if i < len(roles) else None
        if role:
            fp = a.valid_footprint(mem)
            if "R" in role:
                accesses.append((mem, fp, "R"))
            if "W" in role:
                accesses.append((mem, fp, "W"))

    def guarded():
        with np.errstate(all="ignore"):
            run()

    cost = costs.vector_cost(nbytes, table_name)
    return OpPlan(pipe_of(table_name, call.where), cost, guarded, accesses, mutex_of(call))


def scalar_like(tile: Tile, s):
    return np.asarray(s).astype(tile.dtype.compute)


# -- element-wise -------------------------------------------------------------------------------

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "rem": np.fmod,
    "and_": np.bitwise_and, "or_": np.bitwise_or, "xor": np.bitwise_xor,
    "shl": np.left_shift, "shr": np.right_shift,
}
#: Scalar rhs of a binary op selects the tile-scalar IR op.
SCALAR_IR = {"add": "adds", "sub": "subs", "mul": "muls", "div": "divs", "maximum": "maxs",
             "minimum": "mins", "and_": "ands", "or_": "ors", "rem": "rems"}
TILE_SCALAR = {"adds": np.add, "subs": np.subtract, "muls": np.multiply, "divs": np.divide,
               "maxs": np.maximum, "mins": np.minimum, "rems": np.fmod, "ands": np.bitwise_and,
               "ors": np.bitwise_or, "xors": np.bitwise_xor, "shls": np.left_shift, "shrs": np.right_shift}
UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs,
    "rsqrt": lambda x: 1 / np.sqrt(x), "recip": lambda x: 1 / x,
    "relu": lambda x: np.maximum(x, 0), "not_": np.invert,
}
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}
REDUCE: dict[str, tuple[Callable[..., np.ndarray], int]] = {
    "row_sum": (np.sum, 1), "row_max": (np.max, 1), "row_min": (np.min, 1),
    "col_sum": (np.sum, 0), "col_max": (np.max, 0), "col_min": (np.min, 0)}
EXPAND = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "max": np.maximum, "min": np.minimum}


def _elementwise(call: OpCall, table_name: str, fn, inputs: list) -> OpPlan:
    """out = fn(*inputs) over out's valid window; inputs are tiles or scalars."""
    out = call.tile(0)
    mo = local(call, out)
    mems = [local(call, t) if isinstance(t, Tile) else None for t in inputs]
    vr, vc = out.valid
    for t in inputs:
        if isinstance(t, Tile):
            fits(call, t, vr, vc)

    def run():
        args = [values(t, m, vr, vc) if m is not None else scalar_like(out, t)
                for t, m in zip(inputs, mems, strict=True)]
        put(out, mo, np.asarray(fn(*args)).astype(out.dtype.compute))

    return vector_plan(call, table_name, run)


@handles(*BINARY)
def binary(call: OpCall) -> OpPlan:
    if call.name in ("maximum", "minimum") and "dim" in call.kwargs:
        axis = "row" if call.kwargs["dim"] == 0 else "col"
        return reduce(call, f"{axis}_{call.name[:3]}")
    rhs = call.arg(2)
    if not isinstance(rhs, Tile):
        if call.name not in SCALAR_IR:
            raise call.fail("the right operand must be a tile")
        return _elementwise(call, SCALAR_IR[call.name], TILE_SCALAR[SCALAR_IR[call.name]], [call.tile(1), rhs])
    return _elementwise(call, call.name, BINARY[call.name], [call.tile(1), rhs])


@handles(*TILE_SCALAR)
def tile_scalar(call: OpCall) -> OpPlan:
    return _elementwise(call, call.name, TILE_SCALAR[call.name], [call.tile(1), call.arg(2)])


@handles(*UNARY)
def unary(call: OpCall) -> OpPlan:
    return _elementwise(call, call.name, UNARY[call.name], [call.tile(1)])


@handles("add_relu", "sub_relu")
def fused_relu(call: OpCall) -> OpPlan:
    fn = BINARY[call.name.split("_")[0]]
    return _elementwise(call, call.name, lambda a, b: np.maximum(fn(a, b), 0), [call.tile(1), call.tile(2)])


@handles("axpy")
def axpy(call: OpCall) -> OpPlan:
    out = call.tile(0)
    return _elementwise(call, "axpy", lambda s, o: call.arg(2) * s + o, [call.tile(1), out])


@handles("cast")
def cast(call: OpCall) -> OpPlan:
    """out = src converted to out's dtype; default rounding CAST_ROUND (ties away from zero)."""
    out, src = call.tile(0), call.tile(1)
    mode = getattr(call.kwargs.get("mode"), "name", "CAST_ROUND")
    return _elementwise(call, "cast", lambda x: rounding.convert(x, src.dtype, out.dtype, mode), [src])


@handles(*COMPARE)
def compare(call: OpCall) -> OpPlan:
    """Mask stored as one 0/1 byte per element (the hardware's bit packing is undocumented)."""
    rhs = call.arg(2)
    fn = COMPARE[call.name]
    table = call.name if isinstance(rhs, Tile) else "cmps"
    return _elementwise(call, table, lambda a, b: fn(a, b), [call.tile(1), rhs])


@handles("select")
def select(call: OpCall) -> OpPlan:
    rhs = call.arg(3)
    return _elementwise(call, "select", lambda m, a, b: np.where(m != 0, a, b), [call.tile(1), call.tile(2), rhs])


@handles("full", "expands", "fill")
def fill(call: OpCall) -> OpPlan:
    out = call.tile(0)
    return _elementwise(call, call.name, lambda s: np.full(tuple(out.valid), s), [call.arg(1)])


@handles("transpose", "ub_copy")
def transpose(call: OpCall) -> OpPlan:
    out, src = call.tile(0), call.tile(1)
    mo, ms = local(call, out), local(call, src)
    vr, vc = src.valid
    flip = call.name == "transpose"
    fits(call, out, *((vc, vr) if flip else (vr, vc)))

    def run():
        v = values(src, ms, vr, vc)
        put(out, mo, v.T if flip else v)

    return vector_plan(call, call.name, run)


# -- reductions and expands ------------------------------------------------------------------

@handles("sum", *REDUCE)
def reduce(call: OpCall, ir: str | None = None) -> OpPlan:
    if ir is None:
        ir = call.name if call.name != "sum" else ("row_sum" if call.kwargs.get("dim", 0) == 0 else "col_sum")
    fn, axis = REDUCE[ir]
    out, src = call.tile(0), call.tile(1)
    mo, ms = local(call, out), local(call, src)
    vr, vc = src.valid
    fits(call, out, *((vr, 1) if axis == 1 else (1, vc)))

    def run():
        put(out, mo, np.asarray(fn(values(src, ms, vr, vc), axis=axis, keepdims=True)).astype(out.dtype.compute))

    table = call.name if op_roles(call.name) else ir
    return vector_plan(call, table, run)


@handles("row_expand", "col_expand")
def expand(call: OpCall) -> OpPlan:
    out, src = call.tile(0), call.tile(1)
    mo, ms = local(call, out), local(call, src)
    vr, vc = out.valid
    row = call.name == "row_expand"

    def run():
        v = values(src, ms, vr, 1) if row else values(src, ms, 1, vc)
        put(out, mo, np.broadcast_to(v, (vr, vc)))

    return vector_plan(call, call.name, run)


def _expand_binop(call: OpCall, row: bool, op: str) -> OpPlan:
    out, src, vec = call.tile(0), call.tile(1), call.tile(2)
    mo, ms, mv = local(call, out), local(call, src), local(call, vec)
    vr, vc = out.valid
    fn = EXPAND[op]
    fits(call, src, vr, vc)

    def run():
        v = values(vec, mv, vr, 1) if row else values(vec, mv, 1, vc)
        put(out, mo, np.asarray(fn(values(src, ms, vr, vc), v)).astype(out.dtype.compute))

    table = call.name if op_roles(call.name) else f"{'row' if row else 'col'}_expand_{op}"
    return vector_plan(call, table, run)


def _expand_handler(op: str, row: bool | None) -> Callable[[OpCall], OpPlan]:
    """The handler of `<row|col>_expand_<op>`; row=None reads the direction from `dim=`."""
    def handler(call: OpCall) -> OpPlan:
        return _expand_binop(call, call.kwargs.get("dim", 0) == 0 if row is None else row, op)
    return handler


for _op in EXPAND:
    HANDLERS[f"row_expand_{_op}"] = _expand_handler(_op, True)
    HANDLERS[f"col_expand_{_op}"] = _expand_handler(_op, False)
    if _op != "add":  # there is no pl.expand_add
        HANDLERS[f"expand_{_op}"] = _expand_handler(_op, None)


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
    lo, hi = sorted((a0, a1))
    st = arr.strides
    base = sum(offsets[ax] * st[ax] for ax in range(nd))
    fp = Footprint.make(tensor.memkey, base, st[lo], extent[lo], (extent[hi] - 1) * st[hi] + arr.itemsize)
    return tuple(index), a0 > a1, fp


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
    mem = local(call, dst)
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
    mem = local(call, src)
    order = call.kwargs.get("order")
    if order is not None and list(order) != sorted(order):
        raise call.fail(f"store order must be ascending, got {list(order)}")
    offsets = call.arg(2, "offsets")
    if call.name == "store_tile":
        offsets = _tile_offsets(call, src, offsets, order, len(offsets))
    vr, vc = src.valid
    index, _, gfp = _gm_window(call, tensor, offsets, vr, vc, order, src)
    atomic = getattr(call.kwargs.get("atomic"), "name", "AtomicNone") == "AtomicAdd"
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
        if atomic:
            v = tensor.dtype.to_compute(tensor.array[index]) + v
        tensor.array[index] = tensor.dtype.to_storage(np.asarray(v).astype(tensor.dtype.compute))

    accesses = [(mem, src.footprint(mem, 0, 0, vr, vc), "R"), (tensor, gfp, "W")]
    if atomic:
        accesses.insert(0, (tensor, gfp, "R"))
    pipe = store_pipe(src.space)
    return OpPlan(pipe, costs.dma_cost(pipe, vr * vc * src.dtype.itemsize), run, accesses, mutex_of(call))


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
    ms = local(call, src)
    md = call.m.owner_memory(dst.space, call.core) if pair == ("Vec", "Mat") else local(call, dst)
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
        mode = assumed.ACC_TO_VEC_DEFAULT_MODE
        call.m.warnings.append(f"{call.where}: Acc->Vec move without acc_to_vec_mode; assumed {mode}")
    if mode not in ACC_TO_VEC_MODES:
        raise call.fail(f"unknown acc_to_vec_mode {mode!r}")
    mv, nv = src.valid
    aivs = call.m.aivs_of(call.core.block)
    if mode == "DualModeSplitM":
        ma = _round_up(mv, 2)
        h = ma // 2
        parts = [(0, 0, 0, h, nv), (1, h, 0, h, nv)]
    elif mode == "DualModeSplitN":
        na = _round_up(nv, 32)
        h = na // 2
        parts = [(0, 0, 0, mv, h), (1, 0, h, mv, h)]
    else:
        parts = [(0 if mode.endswith("0") else 1, 0, 0, mv, nv)]
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
    """AIV UB (NZ) -> AIC L1, a physical copy of 32-byte blocks (TINSERT).

    The destination is seen as an NZ matrix of `dst_rows` rows: its declared rows when it is
    NZ, its declared columns when it is ZN (a ZN `[R, C]` tile is the NZ `[C, R]` tile of the
    transpose), and `[row, col]` are coordinates in that view. Source column block j (the
    valid rows of it, so a padding row is skipped) lands at view element
    `(col // C0 + j) * dst_rows * C0 + row * C0 + col % C0`. Into ZN this is a transpose:
    `dst[col + j, row + i] = src[i, j]`.
    """
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
    row, col = int(offset[0]), int(offset[1])
    sr, sc = src.valid
    e = src.dtype.itemsize
    c0 = layouts.block_elems(e)
    view_rows, view_cols = dst.type.shape if dst.layout is TileLayout.NZ else dst.type.shape[::-1]
    if row < 0 or col < 0 or row + sr > view_rows or col + sc > view_cols:
        raise call.fail(f"[{sr}, {sc}] source at [{row}, {col}] does not fit {dst.name} {list(dst.type.shape)} "
                        f"(as NZ [{view_rows}, {view_cols}])")
    blocks = -(-sc // c0)
    run = sr * layouts.BLOCK_BYTES
    src_starts = src.addr + np.arange(blocks) * src.type.shape[0] * layouts.BLOCK_BYTES
    dst_starts = dst.addr + ((col // c0 + np.arange(blocks)) * view_rows * c0 + row * c0 + col % c0) * e
    if dst_starts[-1] + run > dst.addr + dst.type.nbytes:
        raise call.fail(f"the last block would end past {dst.name}")

    def run_copy():
        for s0, d0 in zip(src_starts.tolist(), dst_starts.tolist(), strict=True):
            md.buf[d0:d0 + run] = ms.buf[s0:s0 + run]

    pipe = move_pipe("Vec", "Mat")
    return OpPlan(pipe, costs.dma_cost(pipe, blocks * run), run_copy,
                  [(ms, Footprint.of(ms.key, src_starts, src_starts + run), "R"),
                   (md, Footprint.of(md.key, dst_starts, dst_starts + run), "W")], mutex_of(call))


# -- cube ---------------------------------------------------------------------------------------

def _operand(call: OpCall, t: Tile, space: str, what: str) -> None:
    if t.space != space:
        raise call.fail(f"{what} must be in {space}, {t.name} is in {t.space}")


@handles("matmul", "matmul_acc", "matmul_bias")
def matmul(call: OpCall) -> OpPlan:
    dst = call.tile(0)
    if call.name == "matmul_acc":
        acc, lhs, rhs, bias = call.tile(1), call.tile(2), call.tile(3), None
    else:
        acc, lhs, rhs = None, call.tile(1), call.tile(2)
        bias = call.tile(3) if len(call.args) > 3 else None
    _operand(call, dst, "Acc", "dst")
    _operand(call, lhs, "Left", "lhs")
    _operand(call, rhs, "Right", "rhs")
    mems = {id(t): local(call, t) for t in (dst, acc, lhs, rhs, bias) if t is not None}
    m, k = lhs.valid
    k2, n = rhs.valid
    if k != k2:
        raise call.fail(f"K mismatch: lhs valid {lhs.valid} vs rhs valid {rhs.valid}")
    fits(call, dst, m, n)
    integer = not lhs.dtype.is_float()
    acc_t = np.int32 if integer else np.float32

    def run():
        a = values(lhs, mems[id(lhs)], m, k).astype(acc_t)
        out = assumed.matmul(a, values(rhs, mems[id(rhs)], k, n).astype(acc_t))
        if acc is not None:
            out = values(acc, mems[id(acc)], m, n).astype(acc_t) + out
        if bias is not None:
            out = out + values(bias, mems[id(bias)], 1, n).astype(acc_t)
        put(dst, mems[id(dst)], out.astype(dst.dtype.compute))

    accesses = [(mems[id(lhs)], lhs.footprint(mems[id(lhs)], 0, 0, m, k), "R"),
                (mems[id(rhs)], rhs.footprint(mems[id(rhs)], 0, 0, k, n), "R")]
    if acc is not None:
        accesses.append((mems[id(acc)], acc.footprint(mems[id(acc)], 0, 0, m, n), "R"))
    if bias is not None:
        accesses.append((mems[id(bias)], bias.footprint(mems[id(bias)], 0, 0, 1, n), "R"))
    accesses.append((mems[id(dst)], dst.footprint(mems[id(dst)], 0, 0, m, n), "W"))
    return OpPlan(pipe_of(call.name), costs.matmul_cost(m, n, k, lhs.dtype.name), run, accesses, mutex_of(call))


# -- scalar access ------------------------------------------------------------------------------

def _element(call: OpCall, container, offset):
    """(memory, byte footprint, getter, setter) of one element addressed by a linear offset
    from the container's data pointer (for a tile: raw, whatever its layout)."""
    off = int(offset)
    if isinstance(container, GMTensor):
        flat = container.array.reshape(-1)
        if not 0 <= off < flat.size:
            raise call.fail(f"offset {off} outside GM tensor '{container.name}' of {flat.size} elements")
        fp = Footprint.make(container.memkey, off * flat.itemsize, flat.itemsize, 1, flat.itemsize)
        return container, fp, lambda: flat[off].item(), lambda v: flat.__setitem__(off, v)
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
    r, c = (int(x) for x in shape)
    for t in tiles:
        if not isinstance(t, Tile):
            raise KernelError(f"set_validshape needs a tile or tile group, got {target!r}", where)
        if not (1 <= r <= t.shape[0] and 1 <= c <= t.shape[1]):
            raise KernelError(f"valid shape [{r}, {c}] outside tile {t.name} {list(t.shape)}", where)
        t.valid = [r, c]
