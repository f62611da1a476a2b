"""Fused vector ops: several element-wise steps in one call, and the partial ops of tail
blocks. A fused op runs its steps as the backend emits them, so a step that keeps its
intermediate in `lhs` leaves it there (`assumed.FUSED_INTERMEDIATE_IN_LHS`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sim_runtime import assumed, rounding
from sim_runtime.opplan import OpPlan
from sim_runtime.ops.base import OpCall, fits, handles, local, put, values, vector_plan
from sim_runtime.tiles import Tile


def _relu(x):
    return np.maximum(x, 0)


#: name -> (the step kept in lhs, the step from lhs to out; None = a plain copy)
_STEPS: dict[str, tuple[Callable, Callable | None]] = {
    "add_relu": (np.add, _relu),
    "sub_relu": (np.subtract, _relu),
    "add_relu_cast": (lambda a, b: _relu(np.add(a, b)), None),
    "sub_relu_cast": (lambda a, b: _relu(np.subtract(a, b)), None),
    "mul_cast": (np.multiply, None),
}


@handles(*_STEPS)
def fused_two_step(call: OpCall) -> OpPlan:
    """`out = post(lhs OP rhs)`, cast to out's dtype (the `_cast` forms round by `mode`,
    default CAST_ROUND); the intermediate is left in `lhs`."""
    out, lhs, rhs = call.tile(0), call.tile(1), call.tile(2)
    first, second = _STEPS[call.name]
    mo, ml, mr = local(call, out), local(call, lhs), local(call, rhs)
    vr, vc = out.valid
    fits(call, lhs, vr, vc)
    fits(call, rhs, vr, vc)
    target = call.kwargs.get("target_type")
    if target is not None and target is not out.dtype:
        raise call.fail(f"target_type {target.name} differs from the dtype of {out.name} ({out.dtype.name})")
    mode = getattr(call.kwargs.get("mode"), "name", "CAST_ROUND")
    keep = assumed.FUSED_INTERMEDIATE_IN_LHS

    def run():
        mid: np.ndarray = np.asarray(first(values(lhs, ml, vr, vc), values(rhs, mr, vr, vc))).astype(lhs.dtype.compute)
        if keep:
            put(lhs, ml, mid)
            mid = values(lhs, ml, vr, vc)  # as stored (fp16 / bf16 rounding)
        res = mid if second is None else second(mid)
        put(out, mo, np.asarray(rounding.convert(res, lhs.dtype, out.dtype, mode)).astype(out.dtype.compute))

    return vector_plan(call, call.name, run)


#: name -> fn(out, a, b) of the three-operand ops whose first tile is both read and written
_ACCUMULATING = {
    "fused_mul_add": lambda o, a, b: a * o + b,
    "fused_mul_add_relu": lambda o, a, b: np.maximum(o * a + b, 0),
    "mul_add_dst": lambda o, a, b: a * b + o,
}


@handles(*_ACCUMULATING)
def accumulating(call: OpCall) -> OpPlan:
    out, a, b = call.tile(0), call.tile(1), call.tile(2)
    fn = _ACCUMULATING[call.name]
    mo, ma, mb = local(call, out), local(call, a), local(call, b)
    vr, vc = out.valid
    fits(call, a, vr, vc)
    fits(call, b, vr, vc)

    def run():
        res = fn(values(out, mo, vr, vc), values(a, ma, vr, vc), values(b, mb, vr, vc))
        put(out, mo, np.asarray(res).astype(out.dtype.compute))

    return vector_plan(call, call.name, run)


@handles("addc")
def addc(call: OpCall) -> OpPlan:
    out, *ins = (call.tile(i) for i in range(4))
    mo = local(call, out)
    mems = [local(call, t) for t in ins]
    vr, vc = out.valid
    for t in ins:
        fits(call, t, vr, vc)

    def run():
        a, b, c = (values(t, m, vr, vc) for t, m in zip(ins, mems, strict=True))
        put(out, mo, np.asarray(a + b + c).astype(out.dtype.compute))

    return vector_plan(call, "addc", run)


_PART = {"partadd": np.add, "partmax": np.maximum, "partmin": np.minimum, "partmul": np.multiply}


@handles(*_PART)
def part(call: OpCall) -> OpPlan:
    """Where both inputs are valid, `src0 OP src1`; where only the full one is, its value.
    One input's valid shape must equal out's; the other's may be smaller."""
    out, s0, s1 = call.tile(0), call.tile(1), call.tile(2)
    mo, m0, m1 = local(call, out), local(call, s0), local(call, s1)
    vr, vc = out.valid
    if vr == 0 or vc == 0:
        return vector_plan(call, call.name, lambda: None, [])
    full, small = (s0, s1) if list(s0.valid) == [vr, vc] else (s1, s0)
    if list(full.valid) != [vr, vc]:
        raise call.fail(f"one input must have out's valid shape {[vr, vc]}; {s0.name} has {s0.valid}, "
                        f"{s1.name} has {s1.valid}")
    sr, sc = small.valid
    if sr > vr or sc > vc:
        raise call.fail(f"{small.name} valid {small.valid} exceeds out's valid shape {[vr, vc]}")
    fn = _PART[call.name]
    mf, ms = (m0, m1) if full is s0 else (m1, m0)

    def run():
        res = values(full, mf, vr, vc).copy()
        a, b = values(s0, m0, sr, sc), values(s1, m1, sr, sc)
        res[:sr, :sc] = fn(a, b)
        put(out, mo, np.asarray(res).astype(out.dtype.compute))

    accesses = [(mf, full.footprint(mf, 0, 0, vr, vc), "R"), (ms, small.footprint(ms, 0, 0, sr, sc), "R"),
                (mo, out.footprint(mo, 0, 0, vr, vc), "W")]
    return vector_plan(call, call.name, run, accesses)


def _pad_value(call: OpCall, tile: Tile):
    pad = tile.type.pad
    name = getattr(pad, "name", None) or {0: "null", 1: "zero", 2: "max", 3: "min"}.get(pad, None)
    if name in (None, "null"):
        raise call.fail(f"{tile.name} has no pad value (TileType pad=pl.TilePad.zero/max/min)")
    dt = np.dtype(tile.dtype.compute)
    if name == "zero":
        return 0
    if dt.kind == "f":
        return assumed.pad_float(tile.dtype.name, name)
    info = np.iinfo(dt)  # type: ignore[type-var]
    return info.max if name == "max" else info.min


@handles("fillpad")
def fillpad(call: OpCall) -> OpPlan:
    """out = src's valid window, the rest of out's whole shape filled with out's pad value."""
    out, src = call.tile(0), call.tile(1)
    mode = getattr(call.kwargs.get("mode"), "name", "NORMAL")
    if out.dtype.bits not in (8, 16, 32) or src.dtype.bits != out.dtype.bits:
        raise call.fail("fillpad works on b8/b16/b32 tiles of one element width")
    if src.space != out.space:
        raise call.fail(f"source and destination must share a memory space ({src.space} vs {out.space})")
    same_addr = out.addr == src.addr
    if mode == "INPLACE" and not same_addr:
        raise call.fail("INPLACE needs the source and destination at the same address")
    if mode in ("NORMAL", "EXPAND") and same_addr:
        raise call.fail(f"{mode} needs the source and destination at different addresses")
    if mode in ("NORMAL", "INPLACE") and tuple(out.shape) != tuple(src.shape):
        raise call.fail(f"{mode} needs equal shapes, got {list(src.shape)} -> {list(out.shape)}")
    if mode == "EXPAND" and (out.shape[0] < src.shape[0] or out.shape[1] < src.shape[1]):
        raise call.fail(f"EXPAND needs a destination at least as big as the source, got {list(out.shape)}")
    pad = _pad_value(call, out)
    mo, ms = local(call, out), local(call, src)
    vr, vc = src.valid
    rows, cols = out.shape

    def run():
        full = np.full((rows, cols), pad, dtype=np.float64 if out.dtype.is_float() else np.int64)
        full[:vr, :vc] = values(src, ms, vr, vc)
        put(out, mo, full.astype(out.dtype.compute))

    accesses = [(ms, src.footprint(ms, 0, 0, vr, vc), "R"), (mo, out.footprint(mo, 0, 0, rows, cols), "W")]
    table = {"INPLACE": "fillpad_inplace", "EXPAND": "fillpad_expand"}.get(mode, "fillpad")
    return vector_plan(call, table, run, accesses)
