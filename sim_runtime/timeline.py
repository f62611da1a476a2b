"""Simulated timeline: stage, op and sync spans, and their Chrome trace export.

Stage slices are named like the seed's figure, `s2·i5` = stage 2 (1-based, in the order the
stage functions are declared) working on task 5 (0-based, the stage's invocation count on
that core, which equals the pipeline's `_pl_task_id`). A stage spans the work issued inside
it, from its first op's start to its last op's end. Times are simulated cycles; a Chrome
trace counts in microseconds, so one microsecond on the trace's ruler is one cycle.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import count


@dataclass
class Span:
    kind: str  # "stage" | "op" | "wait" | "sync"
    block: int
    core: str
    name: str
    start: int
    end: int
    pipe: str = ""
    stage: int | None = None  #: stage number (of the span itself, or of the stage it is part of)
    task: int | None = None
    where: str = ""
    stage_fn: str = ""  #: name of that stage's function
    ident: int = -1  #: a set's id, for the waits that consume it
    links: tuple[int, ...] = ()  #: a wait's consumed sets (their `ident`)

    @property
    def label(self) -> str:
        return f"s{self.stage}·i{self.task}" if self.kind == "stage" else self.name


def union_length(intervals) -> int:
    """Cycles covered by at least one of the (start, end) intervals."""
    total, reach = 0, None
    for a, b in sorted(intervals):
        if reach is None or a > reach:
            total += b - a
            reach = b
        elif b > reach:
            total += b - reach
            reach = b
    return total


def lanes(spans: list[Span]) -> list[int]:
    """A lane for each span (sorted by start) so that spans of one lane never overlap: a
    core's stages overlap in time when they use different pipes, and are drawn stacked."""
    ends: list[int] = []
    out = []
    for s in spans:
        lane = next((i for i, e in enumerate(ends) if e <= s.start), len(ends))
        if lane == len(ends):
            ends.append(s.end)
        else:
            ends[lane] = s.end
        out.append(lane)
    return out


@dataclass
class Timeline:
    spans: list[Span] = field(default_factory=list)
    _ids: count = field(default_factory=count, repr=False)

    def add(self, span: Span) -> None:
        self.spans.append(span)

    def new_id(self) -> int:
        return next(self._ids)

    @property
    def stages(self) -> list[Span]:
        return [s for s in self.spans if s.kind == "stage"]

    @property
    def ops(self) -> list[Span]:
        return [s for s in self.spans if s.kind != "stage"]

    def busy_by_core(self) -> dict[str, int]:
        """Per core, the cycles in which at least one of its pipes runs an op (waits excluded)."""
        by_core: dict[str, list] = {}
        for s in self.spans:
            if s.kind == "op":
                by_core.setdefault(s.core, []).append((s.start, s.end))
        return {c: union_length(iv) for c, iv in by_core.items()}

    # -- Chrome trace ------------------------------------------------------------------------
    def chrome_trace(self, core_order: list[str] | None = None) -> dict:
        return chrome_trace({"": (self, core_order)})

    def write_trace(self, path, core_order: list[str] | None = None) -> None:
        write_trace(path, {"": (self, core_order)})


def chrome_trace(runs: dict[str, tuple[Timeline, list[str] | None]]) -> dict:
    """Chrome trace JSON of one or more runs (label -> (timeline, core order)): a process per
    run and block, a thread per core, a slice per stage and op, a flow arrow from each
    `set_cross_core` to the wait it releases."""
    events: list[dict] = []
    for number, (label, (timeline, core_order)) in enumerate(runs.items()):
        cores = core_order or sorted({s.core for s in timeline.spans})
        tid = {c: i for i, c in enumerate(cores)}
        pid = {b: number * 1000 + b for b in sorted({s.block for s in timeline.spans})}
        for b, p in pid.items():
            name = f"{label} · block {b}" if label else f"block {b}"
            events.append({"ph": "M", "name": "process_name", "pid": p, "tid": 0, "args": {"name": name}})
            events.append({"ph": "M", "name": "process_sort_index", "pid": p, "tid": 0, "args": {"sort_index": p}})
        seen = set()
        for s in timeline.spans:
            if (s.block, s.core) not in seen:
                seen.add((s.block, s.core))
                events.append({"ph": "M", "name": "thread_name", "pid": pid[s.block], "tid": tid[s.core],
                               "args": {"name": s.core}})
        sets = {}
        # stages first so that equal-start ops nest inside them
        for s in sorted(timeline.spans, key=lambda s: (s.start, s.kind != "stage", -s.end)):
            ev: dict = {"ph": "X", "name": s.label, "cat": s.kind, "pid": pid[s.block], "tid": tid[s.core],
                  "ts": s.start, "dur": max(s.end - s.start, 0), "args": {}}
            if s.kind == "stage":
                ev["args"] = {"stage_fn": s.name, "stage": s.stage, "task": s.task}
            else:
                ev["args"] = {"pipe": s.pipe, "at": s.where}
                if s.stage is not None:
                    ev["args"]["in"] = f"{s.stage_fn} (s{s.stage}·i{s.task})"
            events.append(ev)
            if s.kind == "sync":
                sets[s.ident] = s
        for s in timeline.spans:
            for link in s.links:
                src = sets.get(link)
                if src is None:
                    continue
                flow = number * 1_000_000 + link
                events.append({"ph": "s", "id": flow, "name": "set -> wait", "cat": "flag", "pid": pid[src.block],
                               "tid": tid[src.core], "ts": src.start})
                events.append({"ph": "f", "bp": "e", "id": flow, "name": "set -> wait", "cat": "flag",
                               "pid": pid[s.block], "tid": tid[s.core], "ts": s.start})
    return {"traceEvents": events,
            "otherData": {"time_unit": "1 us on the trace's ruler = 1 simulated cycle"}}


def write_trace(path, runs: dict[str, tuple[Timeline, list[str] | None]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(chrome_trace(runs), f, ensure_ascii=False)
