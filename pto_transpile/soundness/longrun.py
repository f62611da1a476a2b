"""Does a kernel of static sizes run long? An estimate read off its loops, before any run.

A kernel whose trip counts are all static is first followed as it runs, up to a short step
budget; only when that budget runs out is it proven at representative trip counts instead
(`check._long_static`). For FlashAttention at 4096 x 32768 that first attempt is a tenth of
the whole proof, spent to learn what the loop bounds already say. `iterations` reads them: the
most times the body of a nest of `pl.range` loops runs, from module constants, static tensor
dimensions and the kernel's own straight-line locals computed from them (`kv = k.shape[0] //
TKV`). It only chooses which of two sound ways to try first: a wrong estimate costs time,
never a verdict.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import libcst as cst

#: Iterations of a loop nest's body past which the representative counts are tried first:
#: far past what the short budget follows, so a kernel of bundled size never pays for both.
LONG_ITERATIONS = 1024

_OPS: dict[type, Callable[[int, int], int]] = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod,
}


def iterations(file, kernel, dims: dict) -> int:
    """The most iterations any nest of `pl.range` loops in the kernel body runs (the product of
    its trip counts); a loop whose count cannot be read counts once. `dims`: each GM tensor
    parameter's static shape."""
    return _loops(file, kernel, dims)[0]


def longest_loop(file, kernel, dims: dict) -> int:
    """The most iterations one `pl.range` loop of the kernel body runs, of those whose count can
    be read (0 when none can)."""
    return max(_loops(file, kernel, dims)[1], default=0)


def _loops(file, kernel, dims: dict) -> tuple[int, list[int]]:
    """`iterations`, and the trip count of each loop whose count can be read."""
    counter = _LoopCounter(file, dims)
    return counter.walk(kernel.node.body.body, 1), counter.counts


class _LoopCounter:
    """Reads the trip counts of a kernel's loops, with the straight-line locals before them."""

    def __init__(self, file, dims: dict) -> None:
        self.file, self.dims = file, dims
        self.env: dict[str, Any] = {}
        self.counts: list[int] = []

    def value(self, node: cst.BaseExpression) -> int | None:
        if type(node) is cst.Name and node.value in self.env:
            return self.env[node.value]
        if type(node) is cst.Subscript and type(node.value) is cst.Attribute \
                and node.value.attr.value == "shape" and isinstance(node.value.value, cst.Name) \
                and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            shape = self.dims.get(node.value.value.value, ())
            i = self.value(node.slice[0].slice.value)
            dim = shape[i] if isinstance(i, int) and 0 <= i < len(shape) else None
            return dim if type(dim) is int else None  # (`pl.DYNAMIC` is a `pl` constant, not a size)
        if type(node) is cst.BinaryOperation and type(node.operator) in _OPS:
            a, b = self.value(node.left), self.value(node.right)
            if a is None or b is None or (b == 0 and type(node.operator) in (cst.FloorDivide, cst.Modulo)):
                return None
            return _OPS[type(node.operator)](a, b)
        found = self.file.evaluator.try_eval(node, None)
        return found if type(found) is int else None

    def trips(self, call: cst.Call) -> int:
        args = [self.value(a.value) for a in call.args]
        if len(args) == 1:
            args = [0, *args]
        start, stop = (args[0] if args[0] is not None else 0), args[1]
        step = args[2] if len(args) > 2 and args[2] is not None and args[2] > 0 else 1
        if stop is None:
            return 1
        self.counts.append(max(0, -(-(stop - start) // step)))
        return self.counts[-1]

    def walk(self, body, product: int) -> int:
        most = product
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                            and isinstance(small.targets[0].target, cst.Name):
                        self.env[small.targets[0].target.value] = self.value(small.value)
            elif isinstance(stmt, cst.For) and isinstance(stmt.iter, cst.Call) \
                    and self.file.pl.path(stmt.iter.func) == ("range",) and 1 <= len(stmt.iter.args) <= 3:
                most = max(most, self.walk(stmt.body.body, product * self.trips(stmt.iter)))
            elif isinstance(stmt, (cst.With, cst.For, cst.While)):
                most = max(most, self.walk(stmt.body.body, product))
            elif isinstance(stmt, cst.If):
                most = max(most, self.walk(stmt.body.body, product))
                if stmt.orelse is not None:
                    most = max(most, self.walk(stmt.orelse.body.body if isinstance(stmt.orelse, cst.Else)
                                               else [stmt.orelse], product))
        return most


def looks_long(file, kernel, dims: dict) -> bool:
    return iterations(file, kernel, dims) > LONG_ITERATIONS
