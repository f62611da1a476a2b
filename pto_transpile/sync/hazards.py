"""Overwrites the inserted sync does not prevent, which the user's declarations leave open.

Two cases the original transform leaves entirely to the user (forward-only buffers, and
local groups picked outside the pipeline loop), checked
here because a kernel author cannot see them without running the pipelined kernel:

* a forward-only cross-core buffer (`fwd_ids` without `bwd_ids`): its producer may overwrite
  a tile before the consumer read it, unless the syncs that ARE inserted already order the
  two. That is a reachability question on the unrolled schedule: each core runs its stages
  in (beat, chain) order, and every emitted edge links its two stage executions.
* a slot picked in the outer loop and handed to a delayed stage: the next outer iterations
  pick new slots of the same group; with too few tiles one is overwritten before the
  delayed stage of an earlier outer iteration reads it.
"""

from __future__ import annotations

from itertools import pairwise
from math import ceil

import libcst as cst

from pto_transpile import codes
from pto_transpile.diagnostics import Finding
from pto_transpile.read.model import Kernel, PipelineLoop
from pto_transpile.sync.graph import Edge, SyncGraph
from pto_transpile.sync.plan import Plan
from pto_transpile.sync.schedule import Schedule, schedule_for


def _ordered(loop: PipelineLoop, schedule: Schedule, plan: Plan, tasks: int):
    """succ[(stage, task)] -> successors: same-core program order plus emitted edges."""
    succ: dict[tuple[int, int], list[tuple[int, int]]] = {}
    by_core: dict[str, list[tuple[int, int, int]]] = {}
    for i, stage in enumerate(loop.stages):
        for t in range(tasks):
            by_core.setdefault(stage.section, []).append((t + schedule.delays[i], i, t))
    for events in by_core.values():
        events.sort()
        for (_, i, t), (_, j, u) in pairwise(events):
            succ.setdefault((i, t), []).append((j, u))
    for ops in plan.pre.values():
        for op in ops:
            e = op.edge
            for t in range(tasks):
                u = t + e.task_off
                if 0 <= u < tasks:
                    succ.setdefault((e.src.stage_index, t), []).append((e.dst.stage_index, u))
    return succ


def _reaches(succ, start, goal) -> bool:
    todo, seen = [start], {start}
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        for nxt in succ.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def forward_only_overwrites(kernel: Kernel, loop: PipelineLoop, graph: SyncGraph, plan: Plan,
                            schedule: Schedule) -> list[Finding]:
    emitted = {id(op.edge) for ops in plan.pre.values() for op in ops}
    unsynced: list[Edge] = [
        e for e in graph.edges
        if e.kind == "WAR" and id(e) not in emitted and e.src.buffer == e.dst.buffer
        and e.src.section != e.dst.section and kernel.buffers[e.src.buffer].bwd is None
    ]
    findings = []
    seen = set()
    total = _total_tasks(kernel, loop)
    for e in unsynced:
        if e.src.buffer in seen:
            continue
        tiles = kernel.buffers[e.src.buffer].slot_count or 1
        if total is not None and total <= e.task_off:
            continue  # the loop never comes back to a tile: nothing is overwritten
        span = max(schedule.delays) + 2 * tiles + 8
        tasks = 3 * span
        succ = _ordered(loop, schedule, plan, tasks)
        read = (e.src.stage_index, span)  # the consumer's read, in a task in steady state
        if _reaches(succ, read, (e.dst.stage_index, span + e.task_off)):
            continue
        need: int | None = next((s for s in range(e.task_off + 1, span)
                                 if _reaches(succ, read, (e.dst.stage_index, span + s))), None)
        seen.add(e.src.buffer)
        consumer, producer = loop.stages[e.src.stage_index], loop.stages[e.dst.stage_index]
        findings.append(Finding(codes.FORWARD_ONLY_OVERWRITE, kernel.buffers[e.src.buffer].call, {
            "buffer": e.src.buffer, "tiles": tiles, "producer": producer.func, "consumer": consumer.func,
            "preload": schedule.preload,
            "need": f"at least {need} tiles" if need is not None else "no number of tiles",
            **({} if need is not None else {"_hint": "bwd-only"}),
        }, ((f"producer `{producer.func}` overwrites here", e.dst.access.node),
            (f"consumer `{consumer.func}` reads here", e.src.access.node))))
    return findings


def outer_slot_overwrites(kernel: Kernel, loop: PipelineLoop, schedule: Schedule) -> list[Finding]:
    """Outer-loop picks handed to delayed stages: the group needs 1 + ceil(delay / K) tiles,
    K being the pipeline loop's trip count per outer iteration."""
    findings = []
    trips = _trip_count(kernel, loop.start, loop.end, loop.step)
    outer_trips = _trip_count(kernel, *_bounds(loop.outer))
    for stage in loop.stages:
        d = schedule.delays[stage.index]
        if d == 0:
            continue
        for arg in stage.passed:
            name = getattr(arg.value, "value", None)
            target = loop.pick_aliases.get(name) if isinstance(name, str) else None
            pick = next((p for p in loop.outer_picks if p.target == target), None)
            if pick is None or pick.slot_count is None:
                continue
            tiles = pick.slot_count
            if outer_trips is not None and outer_trips <= tiles:
                continue  # no outer iteration comes back to a slot in use
            fields = {"group": pick.group, "tiles": tiles, "stage": stage.func, "delay": d, "var": pick.target}
            related = ((f"`{pick.target}` is picked here, once per outer iteration", pick.value),)
            if trips is not None:
                need = 1 + ceil(d / trips)
                if tiles < need:
                    findings.append(Finding(codes.OUTER_SLOT_OVERWRITTEN, arg.value, {
                        **fields, "need": need, "lower": _fitting_preload(loop, schedule, stage.index, tiles, trips),
                        "detail": f"the pipeline loop runs {trips} iteration(s) per outer iteration, "
                                  f"so `{pick.group}` needs {need} tiles"}, related))
            elif tiles == 1:
                findings.append(Finding(codes.OUTER_SLOT_OVERWRITTEN, arg.value, {
                    **fields, "need": 1 + d, "lower": _fitting_preload(loop, schedule, stage.index, tiles, None),
                    "detail": "one tile is never enough: the next outer iteration's pick overwrites it"}, related))
            elif tiles < 1 + d:
                least = ceil(d / (tiles - 1)) if tiles > 1 else None
                findings.append(Finding(codes.OUTER_SLOT_MAYBE_OVERWRITTEN, arg.value, {
                    **fields, "detail": (f"this is safe only if the pipeline loop runs at least {least} iterations "
                                         "per outer iteration" if least else "no trip count makes one tile safe"),
                    "need": 1 + d}, related))
    return findings


def _fitting_preload(loop: PipelineLoop, schedule: Schedule, index: int, tiles: int, trips: int | None) -> str:
    """The hint's other way out: the largest lower preload at which `tiles` outer slots
    suffice for stage `index` (for any trip count when it is not known), if any."""
    sections = [s.section for s in loop.stages]
    for preload in range(schedule.preload - 1, -1, -1):
        d = schedule_for(sections, preload).delays[index]
        if d == 0 or (1 + ceil(d / trips) if trips is not None else 1 + d) <= tiles:
            return (". Or use preload 0 (the serial loop with the syncs inserted)" if preload == 0
                    else f". Or lower the preload to {preload}")
    return ""


def _total_tasks(kernel: Kernel, loop: PipelineLoop) -> int | None:
    """Tasks over the whole run (pipeline loop trips times the outer loops'), if constant."""
    total = _trip_count(kernel, loop.start, loop.end, loop.step)
    for node in loop.ancestors:
        if total is None:
            break
        if isinstance(node, cst.For):
            trips = _trip_count(kernel, *_bounds(node))
            total = None if trips is None else total * trips
    return total


def _bounds(node) -> tuple:
    """(start, end, step) expressions of `for _ in <call>(...)`, None where absent."""
    pos = [a.value for a in getattr(node.iter, "args", ()) if a.keyword is None and not a.star]
    if not pos:
        return None, None, None
    start = pos[0] if len(pos) >= 2 else None
    end = pos[1] if len(pos) >= 2 else pos[0]
    step = pos[2] if len(pos) >= 3 else None
    return start, end, step


def _trip_count(kernel: Kernel, start, end, step) -> int | None:
    """Iterations of a `pl.range(start, end, step)` loop when all three are constants."""
    ev = kernel.constants
    if ev is None:
        return None
    end = ev.try_eval(end) if end is not None else None
    start = ev.try_eval(start) if start is not None else 0
    step = ev.try_eval(step) if step is not None else 1
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end, step)) or step <= 0:
        return None
    return max(0, -(-(end - start) // step)) or None
