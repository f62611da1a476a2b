"""Accesses of each stage to every tile group, not only the synchronised ones.

The sync graph needs only cross-core buffers and the buffers sharing their addresses; the
rules that judge local groups (a handover without ids, an op on the wrong core, state kept
in a tile) need them all. Computed once per loop and kept on the context.
"""

from __future__ import annotations

from pto_api.ops import CROSS_CORE_WRITES, SPACE_CORE
from pto_transpile.read.model import Access, Kernel, StageCall
from pto_transpile.rules.context import KernelContext, LoopContext
from pto_transpile.sync.scan import StageScanner


def all_accesses(ctx: LoopContext) -> list[list[Access]]:
    if "all_accesses" not in ctx.memo:
        ctx.memo["all_accesses"] = [stage_accesses(ctx, s) for s in ctx.loop.stages]
    return ctx.memo["all_accesses"]


def stage_accesses(ctx: KernelContext, stage: StageCall) -> list[Access]:
    """The accesses of one stage call to every tile group of the kernel, once per call."""
    memo = ctx.memo.setdefault("stage_accesses", {})
    if stage.call not in memo:
        scanner = StageScanner(ctx.file, ctx.kernel)
        scanner.tracked = set(ctx.kernel.buffers)
        # findings of this wider scan (an op on a plain tile whose pipe it cannot tell...) are
        # not problems of the synchronised buffers; the soundness check judges those ops
        memo[stage.call] = scanner.scan_stage(stage).accesses
    return memo[stage.call]


def in_other_cores_memory(kernel: Kernel, access: Access, core: str) -> bool:
    """Does `access` of a stage on `core` reach the other core's memory other than by a
    documented cross-core write (the fixpipe into Vec, MTE3 into Mat)?"""
    memory = kernel.buffers[access.buffer].memory
    return memory in SPACE_CORE and SPACE_CORE[memory] != core \
        and not ("W" in access.role and (access.pipe, memory) in CROSS_CORE_WRITES)
