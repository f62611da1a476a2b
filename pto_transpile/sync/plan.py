"""From sync graph to sync statements: event ids, in-loop sites, prefire and drain.

Every emitted edge gives one wait before its consumer stage and one set after its producer
stage, indexed by task. An edge whose consumer runs `skew` tasks after its producer
(a buffer release) gets `skew` prefire sets before the loop and `skew` drain waits after
it, so that hardware set and wait counts match exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from pto_api import EVENT_IDS, SCALAR_PIPE
from pto_transpile import codes
from pto_transpile.diagnostics import Finding
from pto_transpile.read.model import Kernel, PipelineLoop
from pto_transpile.sync.graph import Edge, SyncGraph


@dataclass(frozen=True)
class IdRef:
    """Where an edge's event ids live: a list variable of the generated code and its length."""

    name: str
    count: int


@dataclass(frozen=True)
class SyncOp:
    kind: str  #: "set" or "wait"
    pipe: str
    ids: IdRef
    edge: Edge
    section: str
    index: int | None = None  #: literal index for prefire/drain; None = indexed by task


@dataclass
class Plan:
    pre: dict[int, list[SyncOp]] = field(default_factory=dict)  #: stage index -> waits
    post: dict[int, list[SyncOp]] = field(default_factory=dict)  #: stage index -> sets
    prefire: list[SyncOp] = field(default_factory=list)
    drain: list[SyncOp] = field(default_factory=list)
    lifted: list[tuple[str, cst.BaseExpression]] = field(default_factory=list)  #: (name, literal node)
    overlap: list[tuple[str, list[int]]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def blocks(self, ops: list[SyncOp]) -> list[tuple[str, list[SyncOp]]]:
        """Group prefire/drain ops by section, in first-seen section order."""
        out: dict[str, list[SyncOp]] = {}
        for op in ops:
            out.setdefault(op.section, []).append(op)
        return list(out.items())


def lifted_name(kind: str, buffer: str) -> str:
    return f"_pl_{kind}_ids_{buffer}"


def make_plan(kernel: Kernel, loop: PipelineLoop, graph: SyncGraph, overlap_counter: list[int],
              preload: int = 1) -> Plan:
    plan = Plan()
    touched = {n.buffer for n in graph.nodes}
    refs: dict[tuple[str, str], IdRef] = {}
    for buf in {id(b): b for b in kernel.buffers.values()}.values():  # a declaration may bind several names
        if buf.name not in touched or not buf.cross_core:
            continue
        for kind in ("fwd", "bwd"):
            ids = buf.ids(kind)
            if ids is None or ids.values is None:
                continue
            if ids.name is None:
                name = lifted_name(kind, buf.name)
                plan.lifted.append((name, ids.node))
            else:
                name = ids.name
            refs[(buf.name, kind)] = IdRef(name, len(ids.values))

    owner_of = _shared_owner(kernel, graph.edges)
    alloc = _allocate_overlap_ids(kernel, graph, owner_of, touched, plan, overlap_counter)
    for edge in graph.edges:
        ref = _resolve(kernel, edge, owner_of, refs, alloc)
        if ref is None:
            continue
        skew = edge.task_off if edge.kind == "WAR" else 0
        if edge.kind == "WAR" and edge.task_off == 0 and edge.src.buffer != edge.dst.buffer \
                and edge.src.stage_index > edge.dst.stage_index:
            plan.findings.append(Finding(codes.REUSE_ORDER_REVERSED, edge.dst.access.node, {"edge": edge}))
            continue
        if skew < 0:
            fields = {"edge": edge, "skew": skew, **({"_hint": "addresses"} if preload <= 1 else {})}
            plan.findings.append(Finding(codes.INVERSE_TIME_SYNC, edge.dst.access.node, fields))
            continue
        if skew % ref.count:
            plan.findings.append(Finding(codes.TASK_OFFSET_NOT_MULTIPLE, edge.dst.access.node,
                                         {"edge": edge, "skew": skew, "count": ref.count}))
            continue
        plan.pre.setdefault(edge.dst.stage_index, []).append(SyncOp("wait", edge.dst.pipe, ref, edge, edge.dst.section))
        plan.post.setdefault(edge.src.stage_index, []).append(SyncOp("set", edge.src.pipe, ref, edge, edge.src.section))
        for i in range(skew):
            plan.prefire.append(SyncOp("set", edge.src.pipe, ref, edge, edge.src.section, i % ref.count))
            plan.drain.append(SyncOp("wait", edge.dst.pipe, ref, edge, edge.dst.section, i % ref.count))
    _one_wait_pipe(plan)
    return plan


def _one_wait_pipe(plan: Plan) -> None:
    """Put every wait of one core on one list of event ids on the scalar pipe when the edges
    would wait on several pipes (a consumer reading a handed tile on V in one branch and on MTE3
    in the other). A wait runs on its pipe when that pipe reaches it, and the counter of an id
    gives a set to whichever wait runs first: the V wait of a later task could take the set
    meant for an earlier task's MTE3 wait and read the slot before it is written (probe h140).
    Waits of one pipe run in program order, and a wait on S holds back all the core's later work."""
    pipes: dict[tuple[str, str], set[str]] = {}
    for op in [*(op for ops in plan.pre.values() for op in ops), *plan.drain]:
        if op.kind == "wait":
            pipes.setdefault((op.section, op.ids.name), set()).add(op.pipe)
    mixed = {key for key, found in pipes.items() if len(found) > 1}

    def on_scalar(ops: list[SyncOp]) -> list[SyncOp]:
        return [replace(op, pipe=SCALAR_PIPE) if op.kind == "wait" and (op.section, op.ids.name) in mixed else op
                for op in ops]

    if mixed:
        plan.pre = {i: on_scalar(ops) for i, ops in plan.pre.items()}
        plan.drain = on_scalar(plan.drain)


def _shared_owner(kernel: Kernel, edges: list[Edge]) -> dict[int, str]:
    """WAR edges into one write at one task offset share the single cross-core owner's ids."""
    groups: dict[tuple[int, int], list[Edge]] = {}
    for e in edges:
        if e.kind == "WAR":
            groups.setdefault((e.dst.seq, e.task_off), []).append(e)
    owner_of: dict[int, str] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        owners = [e for e in group if kernel.buffers[e.src.buffer].cross_core]
        if len(owners) == 1:
            for e in group:
                owner_of[id(e)] = owners[0].src.buffer
    return owner_of


def _redundant(edge: Edge, handovers: set[int]) -> bool:
    """A same-task write-after-read across buffers that needs no sync of its own: on one core,
    or from an earlier stage to a later one when every stage in between hands data to the
    next one (`handovers`: stage indices k with a forward sync from k to k + 1), so the chain
    of forward syncs already orders the two. (The original assumes the chain without looking.)"""
    if edge.task_off != 0:
        return False
    if edge.src.section == edge.dst.section:
        return True
    return edge.src.stage_index < edge.dst.stage_index and all(
        k in handovers for k in range(edge.src.stage_index, edge.dst.stage_index))


def _handovers(kernel: Kernel, edges: list[Edge]) -> set[int]:
    """Stage indices k whose stage hands a buffer with `fwd_ids` to stage k + 1 in the same task."""
    out = set()
    for e in edges:
        fwd = kernel.buffers[e.src.buffer].fwd if e.kind == "RAW" else None
        if fwd is not None and e.task_off == 0 and e.dst.stage_index == e.src.stage_index + 1:
            out.add(e.src.stage_index)
    return out


def _allocate_overlap_ids(kernel, graph, owner_of, touched, plan: Plan,
                          counter: list[int]) -> dict[tuple[int, int], IdRef]:
    """Free event ids for WAR edges created purely by address reuse."""
    wanted: dict[tuple[int, int], int] = {}
    handovers = _handovers(kernel, graph.edges)
    for e in graph.edges:
        if e.kind != "WAR" or e.src.buffer == e.dst.buffer or id(e) in owner_of or _redundant(e, handovers) \
                or e.src.section == e.dst.section:
            continue
        wanted.setdefault((e.src.seq, e.dst.seq), graph.region_slots[e.dst.region])
    if not wanted:
        return {}
    used = set()
    for name in touched:
        buf = kernel.buffers[name]
        for ids in (buf.fwd, buf.bwd):
            if ids is not None and ids.values:
                used.update(ids.values)
    free = [i for i in EVENT_IDS if i not in used]
    sizes = dict(wanted)
    downgraded = []
    for key in sorted(sizes, key=lambda k: sizes[k]):
        if sum(sizes.values()) <= len(free):
            break
        if sizes[key] > 1:
            sizes[key] = 1
            edge = next(e for e in graph.edges if (e.src.seq, e.dst.seq) == key)
            downgraded.append(Finding(codes.OVERLAP_IDS_DOWNGRADED, edge.dst.access.node,
                                      {"edge": edge, "wanted": wanted[key]}))
    if sum(sizes.values()) <= len(free):
        plan.findings.extend(downgraded)
    else:
        edge = next(e for e in graph.edges if (e.src.seq, e.dst.seq) in sizes)
        plan.findings.append(Finding(codes.OVERLAP_IDS_EXHAUSTED, edge.dst.access.node, {
            "need": sum(sizes.values()), "free": len(free), "used": sorted(used)}))
        return {}
    refs = {}
    for key, n in sizes.items():
        ids, free = free[:n], free[n:]
        name = f"_pl_overlap_ids_{counter[0]}"
        counter[0] += 1
        plan.overlap.append((name, ids))
        refs[key] = IdRef(name, len(ids))
    return refs


def _resolve(kernel: Kernel, edge: Edge, owner_of, refs, alloc) -> IdRef | None:
    """Which ids an edge uses, or None when it emits nothing."""
    if edge.src.section == edge.dst.section:
        return None
    if edge.kind == "RAW":
        return refs.get((edge.src.buffer, "fwd"))
    if id(edge) in owner_of:
        return refs.get((owner_of[id(edge)], "bwd"))
    if edge.src.buffer == edge.dst.buffer:
        return refs.get((edge.src.buffer, "bwd"))
    return alloc.get((edge.src.seq, edge.dst.seq))
