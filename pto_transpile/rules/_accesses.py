"""Accesses of each stage to every tile group, not only the synchronised ones.

The sync graph needs only cross-core buffers and the buffers sharing their addresses; the
rules that judge local groups (a handover without ids, an op on the wrong core, state kept
in a tile) need them all. Computed once per loop and kept on the context.
"""

from __future__ import annotations

from pto_transpile.model import Access
from pto_transpile.scan import StageScanner


def all_accesses(ctx) -> list[list[Access]]:
    cache = ctx.__dict__.setdefault("_all_accesses", {})
    key = ctx.loop.index
    if key not in cache:
        scanner = StageScanner(ctx.file, ctx.kernel)
        scanner.tracked = set(ctx.kernel.buffers)
        # findings of this wider scan (an op on a plain tile whose pipe it cannot tell...) are
        # not problems of the synchronised buffers; the soundness check judges those ops
        cache[key] = [scanner.scan_stage(s).accesses for s in ctx.loop.stages]
    return cache[key]
