"""Small tree walks the rules share."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from pto_transpile.walk import blocks, find, iter_nodes


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    return find(node, cst.Call)


#: The nodes that bind names (`names_stored` reads their targets).
BINDERS = (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.AsName)


def names_stored(node: cst.CSTNode, binders=None) -> list[cst.Name]:
    """Names bound by assignments, loop targets and `as` clauses under `node`; `binders`,
    when given, are the BINDERS under it, already found."""
    found: list[cst.Name] = []

    def _collect(t) -> None:
        if isinstance(t, cst.Name):
            found.append(t)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                _collect(el.value)

    for n in iter_nodes(node) if binders is None else binders:
        if isinstance(n, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For)):
            _collect(n.target)
        elif isinstance(n, cst.AsName):
            _collect(n.name)
    return found


def statements(stmts) -> Iterator[cst.BaseStatement]:
    """Every statement at any depth (compound statements and their bodies)."""
    for s in stmts:
        yield s
        for block in blocks(s, functions=True):
            yield from statements(block)


def stage_users(ctx) -> dict[str, list[int]]:
    """Cross-core buffer -> indices of the stages of `ctx.loop` that access it."""
    users: dict[str, list[int]] = {}
    for i, accesses in enumerate(ctx.accesses):
        for a in accesses:
            if ctx.kernel.buffers[a.buffer].cross_core and i not in users.setdefault(a.buffer, []):
                users[a.buffer].append(i)
    return users
