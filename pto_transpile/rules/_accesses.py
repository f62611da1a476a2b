"""Accesses of each stage to every tile group, not only the synchronised ones.

The sync graph needs only cross-core buffers and the buffers sharing their addresses; the
rules that judge local groups (a handover without ids, an op on the wrong core, state kept
in a tile) need them all. Computed once per loop and kept on the context.
"""

from __future__ import annotations

from pto_transpile.read.model import Access
from pto_transpile.rules.context import LoopContext
from pto_transpile.sync.scan import StageScanner


def all_accesses(ctx: LoopContext) -> list[list[Access]]:
    if "all_accesses" not in ctx.memo:
        scanner = StageScanner(ctx.file, ctx.kernel)
        scanner.tracked = set(ctx.kernel.buffers)
        # findings of this wider scan (an op on a plain tile whose pipe it cannot tell...) are
        # not problems of the synchronised buffers; the soundness check judges those ops
        ctx.memo["all_accesses"] = [scanner.scan_stage(s).accesses for s in ctx.loop.stages]
    return ctx.memo["all_accesses"]
