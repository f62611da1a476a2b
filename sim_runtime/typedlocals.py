"""Locals annotated with a `pl` dtype (`gain: pl.DT_FP16 = x + j`) hold values of that dtype.

The JIT types such a scalar as the annotation says, in the kernel and in every function it
calls (stages and helpers alike), so the emulator converts the value where it is bound: a
number becomes a `TypedInt`/`TypedFloat` of the dtype (ints wrap, floats round); anything else,
and any annotation that is not a dtype (`n: int = ...`), changes nothing, as in Python.
"""

from __future__ import annotations

import ast

from sim_runtime.dtypes import DType
from sim_runtime.tiles import typed_scalar

#: the name the rewritten assignments call `typed_local` by
TYPED_FN = "__pl_sim_typed__"


def typed_local(value, annotation):
    """The value of a local annotated with a `pl` dtype (`annotation()` is it), converted to it
    when it is a number; any other annotation changes nothing, as in Python."""
    try:
        dtype = annotation()
    except Exception:  # an annotation Python would never have evaluated
        return value
    if isinstance(dtype, DType) and dtype.computable and isinstance(value, (int, float)):
        # (a bool too: `aligned: pl.DT_INT32 = n % 32 == 0` is the int32 1 or 0, as `pl.const`
        # makes it, probe h110)
        return typed_scalar(value, dtype)
    return value


def typed_assignment(node: ast.AnnAssign) -> ast.AnnAssign:
    """`x: A = v` as `x: A = TYPED_FN(v, lambda: A)` where `A` is a dotted name (`pl.DT_FP16`, or
    a name bound to a dtype): a lambda, since Python never evaluates a local's annotation,
    which may name anything."""
    ann = node.annotation
    if node.value is not None and isinstance(ann, (ast.Attribute, ast.Name)):
        lazy = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                          body=ann)
        call = ast.Call(func=ast.Name(TYPED_FN, ast.Load()), args=[node.value, lazy], keywords=[])
        node.value = ast.copy_location(call, node.value)
        ast.fix_missing_locations(node)
    return node


class TypedLocals(ast.NodeTransformer):
    """`typed_assignment` of every annotated local of every function (module-level annotated
    names are not locals: left as they are)."""

    def __init__(self) -> None:
        self.depth = 0

    def _function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_AnnAssign(self, node: ast.AnnAssign):
        self.generic_visit(node)
        return typed_assignment(node) if self.depth else node
