"""The sync dependency graph of one pipeline loop.

Nodes are op-level accesses. Buffers whose addresses overlap share a region; a lane is one
(region, slot). Unrolling the schedule over enough tasks puts every access of every task
on its lane in time order; RAW edges (a read waits for the latest write of its buffer)
and WAR edges (a write waits for the latest read per pipe of what it overwrites) are read
off the lanes in steady state. Address reuse needs no special case: co-located buffers
share lanes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pto_transpile import codes
from pto_transpile.diagnostics import Finding
from pto_transpile.read.model import Access, Kernel, PipelineLoop
from pto_transpile.sync.scan import overlap_pairs


@dataclass(frozen=True)
class Node:
    seq: int
    stage_index: int
    stage: str
    section: str
    buffer: str
    role: str
    pipe: str
    region: int
    access: Access

    @property
    def conditional(self) -> bool:
        """The first of its accesses may not run (`Access.conditional`): it orders nothing after
        it, so the accesses before it are still the latest ones a later access must wait for."""
        return self.access.conditional

    def label(self) -> str:
        return f"{self.stage}({self.buffer} {self.role} {self.pipe})"


@dataclass
class Edge:
    kind: str  #: "RAW" or "WAR"
    src: Node
    dst: Node
    dist: int  #: dst beat - src beat
    task_off: int  #: dst task - src task
    unstable: bool = False


@dataclass
class SyncGraph:
    nodes: list[Node]
    edges: list[Edge]
    region_slots: dict[int, int]
    findings: list[Finding] = field(default_factory=list)

    def users(self, buffer: str) -> list[int]:
        """Stage indices touching `buffer`, in chain order."""
        return sorted({n.stage_index for n in self.nodes if n.buffer == buffer})


@dataclass(frozen=True)
class _Event:
    beat: int
    order: int
    task: int
    node: Node


def build_graph(kernel: Kernel, loop: PipelineLoop, accesses: list[list[Access]], delays: tuple[int, ...]) -> SyncGraph:
    findings: list[Finding] = []
    nodes: list[Node] = []
    for stage_index, stage_accesses in enumerate(accesses):
        seen = set()
        for a in stage_accesses:
            key = (a.buffer, a.role, a.pipe)
            if key in seen:
                continue
            seen.add(key)
            stage = loop.stages[stage_index]
            nodes.append(Node(len(nodes), stage_index, stage.func, stage.section, a.buffer, a.role, a.pipe, -1, a))
    touched = sorted({n.buffer for n in nodes})
    members, slots = _regions(kernel, touched, findings, nodes)
    region_of = {b: r for r, ms in members.items() for b in ms}
    nodes = [Node(n.seq, n.stage_index, n.stage, n.section, n.buffer, n.role, n.pipe, region_of[n.buffer], n.access)
             for n in nodes]
    if any(slots.get(r) is None for r in members):
        return SyncGraph(nodes, [], {}, findings)
    edges = _edges(nodes, slots, delays)
    return SyncGraph(nodes, edges, slots, findings)


def components(items, pairs) -> dict:
    """Each item -> the representative of its connected component, `pairs` joining two items
    (union-find; pairs naming an item not in `items` are ignored)."""
    parent = {x: x for x in items}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        if a in parent and b in parent:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb
    return {x: find(x) for x in parent}


def _regions(kernel: Kernel, touched: list[str], findings: list[Finding], nodes) -> tuple[dict, dict]:
    root = components(touched, overlap_pairs(kernel))
    reps = sorted(set(root.values()))
    members = {i: sorted(b for b in touched if root[b] == rep) for i, rep in enumerate(reps)}
    slots: dict[int, int | None] = {}
    for r, ms in members.items():
        count = kernel.buffers[ms[-1]].slot_count
        slots[r] = count
        if count is None:
            node = next(n.access.node for n in nodes if n.buffer == ms[-1])
            findings.append(Finding(codes.SLOT_COUNT_UNRESOLVED, kernel.buffers[ms[-1]].call,
                                    {"buffer": ms[-1], "use": node}))
    return members, slots


def _edges(nodes: list[Node], slots: dict[int, int], delays: tuple[int, ...]) -> list[Edge]:
    max_delay = max(delays, default=0)
    max_slots = max(slots.values(), default=1)
    warm = max_delay + max_slots
    cool = max_slots
    ntask = warm + 2 * max_slots + cool + 2
    lanes: dict[tuple[int, int], list[_Event]] = {}
    for task in range(ntask):
        for n in nodes:
            lane = (n.region, task % slots[n.region])
            lanes.setdefault(lane, []).append(_Event(task + delays[n.stage_index], n.seq, task, n))
    edges: dict[tuple, Edge] = {}

    def record(kind: str, src: _Event, dst: _Event) -> None:
        if not (warm <= dst.task < ntask - cool):
            return
        key = (kind, src.node.seq, dst.node.seq)
        dist, off = dst.beat - src.beat, dst.task - src.task
        edge = edges.get(key)
        if edge is None:
            edges[key] = Edge(kind, src.node, dst.node, dist, off)
        elif (edge.dist, edge.task_off) != (dist, off):
            edge.unstable = True
            edge.dist, edge.task_off = dist, off

    for events in lanes.values():
        events.sort(key=lambda e: (e.beat, e.order))
        for i, e in enumerate(events):
            if "R" in e.node.role:
                for prev in reversed(events[:i]):
                    if "W" in prev.node.role and prev.node.buffer == e.node.buffer:
                        record("RAW", prev, e)
                        if not prev.node.conditional:
                            break
                continue
            # the last write of each buffer, and past one the stage may skip, the write before it
            last_writes: list[_Event] = []
            settled: set[str] = set()
            for prev in reversed(events[:i]):
                if "W" in prev.node.role and prev.node.buffer not in settled:
                    last_writes.append(prev)
                    if not prev.node.conditional:
                        settled.add(prev.node.buffer)
            released: set[tuple[int, str, int]] = set()  #: (stage, pipe, task) of the reads waited for
            for w in last_writes:
                if w.task == e.task and w.node.stage_index < e.node.stage_index and w.node.buffer == e.node.buffer:
                    # a stage that first writes part of a tile an earlier stage of its task
                    # handed over (its last row, under a test) keeps the rest: it waits for
                    # the handover as a read would
                    record("RAW", w, e)
                gating: dict[str, _Event] = {}
                for r in events:
                    if "R" in r.node.role and r.node.buffer == w.node.buffer and r.task == w.task:
                        best = gating.get(r.node.pipe)
                        if best is None or (r.beat, r.order) > (best.beat, best.order):
                            gating[r.node.pipe] = r
                for r in gating.values():
                    record("WAR", r, e)
                    released.add((r.node.stage_index, r.node.pipe, r.task))
            for w in last_writes:
                if w.node.section != e.node.section and w.task != e.task \
                        and (w.node.stage_index, w.node.pipe, w.task) not in released:
                    # the other core's write on a pipe none of its stage's reads waited for
                    # releases (a load into a received tile after its last read): the next
                    # write waits for it as for a read, or the two land in either order
                    record("WAR", w, e)
    return list(edges.values())


def find_cycles(graph: SyncGraph) -> list[tuple[int, list[Edge]]]:
    """Dependency cycles with their total distance (deadlock iff total <= 0), smallest first per node set."""
    out_edges: dict[int, list[Edge]] = {}
    for e in graph.edges:
        if e.src.stage_index == e.dst.stage_index and e.task_off == 0 and e.src.seq > e.dst.seq:
            # A stage that reads a received tile and later overwrites part of it gets a WAR
            # edge from its own later read to its earlier write (gating readers come from
            # the whole lane). Nothing waits on it -- one stage's accesses are
            # ordered by program order and auto_mutex -- so it cannot be part of a deadlock.
            continue
        out_edges.setdefault(e.src.seq, []).append(e)
    search = _CycleSearch(out_edges, len(graph.nodes) + 1)
    for n in graph.nodes:
        search.dfs(n.seq, n.seq, [], {n.seq}, 0)
    return sorted(search.best.values(), key=lambda c: c[0])


@dataclass
class _CycleSearch:
    """The cycles through each node, the one of least total distance kept per node set."""

    out_edges: dict[int, list[Edge]]
    limit: int  #: the longest path tried
    best: dict[frozenset, tuple[int, list[Edge]]] = field(default_factory=dict)

    def dfs(self, start: int, at: int, path: list[Edge], visited: set[int], total: int) -> None:
        if len(path) > self.limit:
            return
        for e in self.out_edges.get(at, ()):
            nxt = e.dst.seq
            if nxt == start:
                cycle = path + [e]
                key = frozenset(x.src.seq for x in cycle)
                t = total + e.dist
                if key not in self.best or t < self.best[key][0]:
                    self.best[key] = (t, cycle)
            elif nxt not in visited:
                visited.add(nxt)
                self.dfs(start, nxt, path + [e], visited, total + e.dist)
                visited.discard(nxt)
