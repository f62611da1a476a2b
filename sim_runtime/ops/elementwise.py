"""Element-wise vector ops: arithmetic, compare, select, fill, cast, transpose."""

from __future__ import annotations

import numpy as np

from sim_runtime import rounding
from sim_runtime.opplan import OpPlan
from sim_runtime.ops.base import (
    OpCall,
    fits,
    handles,
    local,
    put,
    scalar_like,
    values,
    vector_plan,
)
from sim_runtime.ops.reduce import reduce
from sim_runtime.tiles import Tile

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
