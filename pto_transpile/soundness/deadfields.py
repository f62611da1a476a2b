"""Struct fields a stage sets before it reads them: what it receives in them is never seen.

The check compares what every stage invocation receives in the serial and the pipelined kernel.
A field the stage's first statements overwrite (`st.bias = pl.getval(factors, ki)`), before
anything it runs can read the field, holds a value no op of the stage sees, so it is not compared
(probe h241: such a kernel was refused for a difference in a value nobody reads). Only a plain
prefix of the body counts, and only where nothing those statements evaluate can reach the struct
by another name (another parameter holding it or a container that may, a function given as an
argument): anything else ends the prefix, so the field is compared as before.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from pto_transpile.read.walk import iter_nodes
from pto_transpile.soundness.values import FunctionV, StructV

#: values of a parameter through which an expression might reach a struct given by another name
_MAY_HOLD = (list, tuple, dict, set, StructV, FunctionV)


def fields_set_first(fn: cst.FunctionDef, env: dict[str, Any]) -> frozenset[tuple[str, str]]:
    """(parameter, field) pairs of the struct parameters of `fn` (bound as in `env`) whose field
    the body's first statements set before anything can read it."""
    structs = {name: value for name, value in env.items() if isinstance(value, StructV)}
    if not structs or type(fn.body) is not cst.IndentedBlock:
        return frozenset()
    if len({id(v) for v in structs.values()}) != len(structs):
        return frozenset()  # one struct under two names: a read by the other name is a read
    holders = {name for name, value in env.items() if isinstance(value, _MAY_HOLD)}
    dead: set[tuple[str, str]] = set()
    for i, stmt in enumerate(fn.body.body):
        if i == 0 and _docstring(stmt):
            continue
        found = _fields_set(stmt, structs)
        if found is None or _reads_any(found[1], holders):
            break
        dead.update(found[0])
    return frozenset(dead)


def _fields_set(stmt: cst.BaseStatement, structs: dict) -> tuple[list[tuple[str, str]], cst.BaseExpression] | None:
    """The (parameter, field) pairs a statement `p.f = value` (or `p.f: T = value`, `p.f = q.g =
    value`) sets, for struct parameters `p`, and its value; None for any other statement."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if type(small) is cst.Assign:
        targets, value = [t.target for t in small.targets], small.value
    elif type(small) is cst.AnnAssign and small.value is not None:
        targets, value = [small.target], small.value
    else:
        return None
    out = []
    for target in targets:
        if not (type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value in structs):
            return None
        out.append((target.value.value, target.attr.value))
    return out, value


def _reads_any(value: cst.BaseExpression, names: set[str]) -> bool:
    """Does `value` name one of `names` (an attribute's own name aside)?"""
    attrs = {id(n.attr) for n in iter_nodes(value) if type(n) is cst.Attribute}
    return any(type(n) is cst.Name and n.value in names and id(n) not in attrs for n in iter_nodes(value))


def _docstring(stmt: cst.BaseStatement) -> bool:
    return type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Expr \
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
