"""Slot picks outside the pipeline loops (for the pick rules)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from pto_transpile.read.kinds import slot_access
from pto_transpile.read.model import Kernel
from pto_transpile.read.reader import FileModel
from pto_transpile.read.walk import lines_outside
from pto_transpile.rules.context import KernelContext


@dataclass(frozen=True)
class Pick:
    """A slot pick (`g.next()`, `g.current()`, `g.previous()`, `g[i]`) outside the pipeline loops."""

    stmt: cst.BaseStatement  #: the statement of the kernel body holding it
    small: cst.BaseSmallStatement  #: the simple statement holding it
    expr: cst.BaseExpression  #: the pick itself
    group: str  #: the tile group it picks from
    target: str | None  #: the name it is assigned to when it is a statement of its own, `slot = g.next()`

    @property
    def standalone(self) -> bool:
        return self.target is not None


def picks_outside_loops(ctx: KernelContext) -> list[Pick]:
    """The picks outside the pipeline loops of `ctx.kernel`, in source order; found once
    per kernel (two rules read them)."""
    if "picks_outside_loops" not in ctx.memo:
        ctx.memo["picks_outside_loops"] = list(_picks(ctx.file, ctx.kernel))
    return ctx.memo["picks_outside_loops"]


def _picks(file: FileModel, kernel: Kernel) -> Iterator[Pick]:
    loop_ids = {loop.node for loop in kernel.loops}
    groups = kernel.buffers
    for stmt in lines_outside(kernel.node.body.body, loop_ids):
        for small in stmt.body:
            standalone = None
            if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                    and isinstance(small.targets[0].target, cst.Name):
                access = slot_access(small.value, groups)
                if access is not None:
                    standalone = small.value
                    yield Pick(stmt, small, small.value, access[0], small.targets[0].target.value)
            for n in file.find(small, (cst.Call, cst.Subscript)):
                access = slot_access(n, groups) if n is not standalone else None
                if access is not None:
                    yield Pick(stmt, small, n, access[0], None)

