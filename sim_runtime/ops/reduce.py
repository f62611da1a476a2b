"""Reductions and broadcasts along rows or columns."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pto_api.ops import op_roles
from sim_runtime.opplan import OpPlan
from sim_runtime.ops.base import (
    HANDLERS,
    OpCall,
    fits,
    handles,
    local,
    put,
    values,
    vector_plan,
)
from sim_runtime.tiles import Tile

# -- reductions and expands ----------------------------------------------------------------

REDUCE: dict[str, tuple[Callable[..., np.ndarray], int]] = {
    "row_sum": (np.sum, 1), "row_max": (np.max, 1), "row_min": (np.min, 1),
    "col_sum": (np.sum, 0), "col_max": (np.max, 0), "col_min": (np.min, 0)}
EXPAND = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "max": np.maximum, "min": np.minimum}

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

    return _reads_what_it_expands(vector_plan(call, call.name, run), src, ms, vr, vc, row)


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
    return _reads_what_it_expands(vector_plan(call, table, run), vec, mv, vr, vc, row)


def _reads_what_it_expands(plan: OpPlan, vec: Tile, mem, vr: int, vc: int, row: bool) -> OpPlan:
    """`plan` reading the rows (or columns) of the vector operand it expands: as many as the
    destination has valid, from the operand's first, past a view's own (its valid window, all
    the role table gives, missed them: a race on the rows another op wrote went unseen)."""
    plan.accesses.append((mem, vec.footprint(mem, 0, 0, vr, 1) if row else vec.footprint(mem, 0, 0, 1, vc), "R"))
    return plan


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
