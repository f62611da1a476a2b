"""Where each line of the generated file comes from.

`explain_syncs`: the dependency edge behind every inserted set/wait, with the two source
lines it connects (shown by `pto-transpile --provenance`). `LineOrigins`: for a line of the
generated file, the input line it was kept from, or the edge an inserted sync serves (the
emulator's reports on the generated file name both).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from pto_transpile.read.layout import source_lines
from pto_transpile.results import TranspileResult


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
    lines: tuple[int, int] = (0, 0)  #: input lines of the producer and the consumer access


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

        placed = [("prefire", op) for op in plan.prefire]
        for i in sorted(set(plan.pre) | set(plan.post)):
            placed += [(f"before {stages.get(i, i)}", op) for op in plan.pre.get(i, [])]
            placed += [(f"after {stages.get(i, i)}", op) for op in plan.post.get(i, [])]
        placed += [("drain", op) for op in plan.drain]
        for place, op in placed:
            e = op.edge
            index = f"{op.index}" if op.index is not None else f"task % {op.ids.count}"
            out.append(SyncWhy(
                loop.kernel, line, place, f"{op.kind}_cross_core({op.pipe}, {op.ids.name}[{index}])",
                e.kind, e.dst.buffer if e.kind == "WAR" else e.src.buffer,
                f"{e.src.stage} `pl.{e.src.access.op}` ({e.src.role} on {e.src.pipe}, line {where(e.src)})",
                f"{e.dst.stage} `pl.{e.dst.access.op}` ({e.dst.role} on {e.dst.pipe}, line {where(e.dst)})",
                (where(e.src), where(e.dst)),
            ))
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


#: An inserted sync as the emitter writes it: `pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=IDS[...]`
_SYNC_LINE = re.compile(r"\.(set|wait)_cross_core\(\s*pipe=[\w.]*PipeType\.(\w+),\s*event_id=(\w+)\[")
_SYNC_CALL = re.compile(r"^(set|wait)_cross_core\((\w+), (\w+)\[")
#: A line that is a call of a plain name (a stage's call), as the input and the output write it
_CALL_LINE = re.compile(r"^[ \t]*([^\W\d]\w*)\(")


class LineOrigins:
    """Generated line -> what it is in terms of the input, for reports on the generated file.

    Lines kept from the input are found by diffing the two texts (the output keeps the
    user's text byte for byte); an inserted sync is recognised by its call and named by the
    edges it serves."""

    def __init__(self, result):
        self._input_line: dict[int, int] = {}
        self._generated = source_lines(result.code or "")
        given = source_lines(result.source.text) if result.source is not None else []
        matcher = difflib.SequenceMatcher(None, given, self._generated, autojunk=False)
        for tag, i1, i2, j1, _ in matcher.get_opcodes():
            if tag == "equal":
                self._input_line.update({j1 + k + 1: i1 + k + 1 for k in range(i2 - i1)})
        #: a function called on a line of its own in the input -> those lines (a stage's call is
        #: rewritten, its arguments taken from the ctx ring, so it is not kept as it was)
        self._calls: dict[str, list[int]] = {}
        for number, text in enumerate(given, 1):
            m = _CALL_LINE.match(text)
            if m:
                self._calls.setdefault(m.group(1), []).append(number)
        self._edges: dict[tuple[str, ...], list[SyncWhy]] = {}  #: (kind, pipe, ids) of a sync call -> why
        for why in explain_syncs(result):
            m = _SYNC_CALL.match(why.call)
            if m:
                self._edges.setdefault(m.groups(), []).append(why)

    def note(self, line: int) -> str | None:
        """"input line N", "inserted sync: RAW on `buf`, input lines A -> B", or None."""
        if line in self._input_line:
            return f"input line {self._input_line[line]}"
        text = " ".join(self._generated[line - 1:line + 3]) if line > 0 else ""  # a call may be wrapped
        m = _SYNC_LINE.search(text)
        if m and m.start() >= len(self._generated[line - 1]):  # a sync on a later line: not this line's
            m = None
        whys = self._edges.get(m.groups(), []) if m else []
        if not whys:
            call = _CALL_LINE.match(self._generated[line - 1]) if 0 < line <= len(self._generated) else None
            lines = self._calls.get(call.group(1), []) if call else []
            return f"the call of `{call.group(1)}` at input line {lines[0]}" if call and len(lines) == 1 else None
        served = sorted({f"{w.kind} on `{w.buffer}`, input lines {w.lines[0]} -> {w.lines[1]}" for w in whys})
        return "inserted sync: " + "; ".join(served)
