"""Slot picks outside the pipeline loops (for the pick rules)."""

from __future__ import annotations

import libcst as cst

from pto_transpile.kinds import slot_access
from pto_transpile.walk import blocks


def picks_outside_loops(ctx) -> list[tuple]:
    """(statement, small, pick-expression, is_standalone, target) for picks outside the
    pipeline loops of `ctx.kernel`; found once per kernel (two rules read them)."""
    kernel = ctx.kernel
    cached = kernel.__dict__.get("_picks_outside_loops")
    if cached is None:
        cached = kernel.__dict__["_picks_outside_loops"] = list(_picks(ctx.file, kernel))
    return cached


def _picks(file, kernel):
    loop_ids = {id(loop.node) for loop in kernel.loops}
    groups = kernel.buffers

    def walk(stmts):
        for stmt in stmts:
            if id(stmt) in loop_ids:
                continue
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    yield from _small(stmt, small)
            for block in blocks(stmt):
                yield from walk(block)

    def _small(stmt, small):
        standalone = None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                and slot_access(small.value, groups):
            standalone = small.value
            yield stmt, small, small.value, True, small.targets[0].target.value
        found = [n for n in file.find(small, (cst.Call, cst.Subscript))
                 if n is not standalone and slot_access(n, groups)]
        for n in found:
            yield stmt, small, n, False, None

    yield from walk(kernel.node.body.body)
