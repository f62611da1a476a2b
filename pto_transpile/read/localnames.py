"""The names a function binds itself (they are never the module's inside it)."""

from __future__ import annotations

import libcst as cst

from pto_transpile.read.walk import BINDERS, names_stored

#: Nodes that bind a local name besides BINDERS' assignments, loop targets and `as` names.
_OTHER_BINDERS = (cst.Param, cst.FunctionDef, cst.ClassDef, cst.CompFor, cst.NamedExpr, cst.ImportAlias,
                  cst.MatchAs, cst.MatchStar, cst.MatchMapping)


def local_names(file, fn: cst.FunctionDef) -> set[str]:
    """Parameters, assignment and loop targets, `as` names, nested definitions, imports and
    comprehension targets of `fn` (nested functions included: a close over-approximation)."""
    return _bound(file, fn, ())


def unbound_parameters(file, fn: cst.FunctionDef) -> frozenset[str]:
    """The parameters of `fn` that nothing in it binds again (`local_names` of all but its own
    parameters): in a kernel, names holding its arguments wherever they are read."""
    params = fn.params
    own = (*params.posonly_params, *params.params, *params.kwonly_params)
    return frozenset(p.name.value for p in own) - _bound(file, fn, own)


def _bound(file, fn: cst.FunctionDef, skipped: tuple) -> set[str]:
    names = {n.value for n in names_stored(fn, file.find(fn, BINDERS))}
    for n in file.find(fn, _OTHER_BINDERS):
        if any(n is p for p in skipped):
            continue
        if isinstance(n, (cst.Param, cst.FunctionDef, cst.ClassDef)):
            if n is not fn:
                names.add(n.name.value)
        elif isinstance(n, (cst.CompFor, cst.NamedExpr)):
            names.update(x.value for x in file.find(n.target, cst.Name))
        elif isinstance(n, (cst.MatchAs, cst.MatchStar)):  # `case left:`, `case [*rest]:`
            if n.name is not None:
                names.add(n.name.value)
        elif isinstance(n, cst.MatchMapping):  # `case {**rest}:`
            if n.rest is not None:
                names.add(n.rest.value)
        elif n.asname is None:
            head: cst.BaseExpression = n.name
            while isinstance(head, cst.Attribute):
                head = head.value
            if isinstance(head, cst.Name):
                names.add(head.value)
    return names
