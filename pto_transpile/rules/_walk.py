"""Small tree walks the rules share (the walks analysis shares too are in walk.py)."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from pto_transpile.read.walk import blocks, find


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    return find(node, cst.Call)


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
