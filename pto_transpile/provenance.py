"""Why each sync is there: the dependency edge behind every inserted set/wait, with the two
source lines it connects. Shown by `pto-transpile --provenance`."""

from __future__ import annotations

from dataclasses import dataclass

from pto_transpile.api import TranspileResult


@dataclass(frozen=True)
class SyncWhy:
    kernel: str
    loop_line: int
    place: str  #: "before <stage>", "after <stage>", "prefire", "drain"
    call: str  #: e.g. "wait_cross_core(FIX, _pl_bwd_ids_x[task % 2])"
    kind: str  #: "RAW" (data ready) or "WAR" (buffer released)
    buffer: str
    producer: str  #: the edge's source access: stage, op, role, pipe and line
    consumer: str


def explain_syncs(result: TranspileResult) -> list[SyncWhy]:
    src = result.source
    out: list[SyncWhy] = []
    if src is None:
        return out

    def where(node) -> int:
        return src.line_of(node.access.node)

    for loop in result.loops:
        plan = loop.plan
        if plan is None:
            continue
        line = src.line_of(loop.node)
        stages = {n.stage_index: n.stage for n in loop.graph.nodes} if loop.graph else {}

        def add(place, op):
            e = op.edge
            index = f"{op.index}" if op.index is not None else f"task % {op.ids.count}"
            out.append(SyncWhy(
                loop.kernel, line, place, f"{op.kind}_cross_core({op.pipe}, {op.ids.name}[{index}])",
                e.kind, e.dst.buffer if e.kind == "WAR" else e.src.buffer,
                f"{e.src.stage} `pl.{e.src.access.op}` ({e.src.role} on {e.src.pipe}, line {where(e.src)})",
                f"{e.dst.stage} `pl.{e.dst.access.op}` ({e.dst.role} on {e.dst.pipe}, line {where(e.dst)})",
            ))

        for op in plan.prefire:
            add("prefire", op)
        for i in sorted(set(plan.pre) | set(plan.post)):
            for op in plan.pre.get(i, []):
                add(f"before {stages.get(i, i)}", op)
            for op in plan.post.get(i, []):
                add(f"after {stages.get(i, i)}", op)
        for op in plan.drain:
            add("drain", op)
    return out


def render_provenance(rows: list[SyncWhy]) -> str:
    """One line per sync: where it sits, what it is, and the two accesses it orders."""
    out, loop = [], None
    for r in rows:
        if (r.kernel, r.loop_line) != loop:
            loop = (r.kernel, r.loop_line)
            out.append(f"pipeline loop at line {r.loop_line} of kernel `{r.kernel}`:")
        reason = "data ready" if r.kind == "RAW" else "buffer released"
        out.append(f"  {r.place:<16} {r.call}")
        out.append(f"  {'':<16}   {r.kind} on `{r.buffer}` ({reason}): {r.producer}  ->  {r.consumer}")
    return "\n".join(out) + ("\n" if out else "")
