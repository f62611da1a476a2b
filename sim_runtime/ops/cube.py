"""Matrix ops on the cube core."""

from __future__ import annotations

import numpy as np

from sim_runtime import assumed, costs
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
from sim_runtime.tiles import Tile

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
    return OpPlan(pipe_of(call.name), costs.matmul_cost(m, n, k, lhs.dtype.name), run, accesses, mutex_of(call),
                  flag=flag_of(call, dst))
