"""Simulated timeline: stage and op spans, Chrome trace export, terminal Gantt chart.

Stage slices are named like the seed's figure, `s2·i5` = stage 2 (1-based, in the order the
stage functions are declared) working on task 5 (0-based, the stage's invocation count on
that core, which equals the pipeline's `_pl_task_id`). Times are simulated cycles; the trace
writes one cycle as one microsecond so that Perfetto's ruler reads in cycles.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass
class Span:
    kind: str  # "stage" | "op" | "wait"
    block: int
    core: str
    name: str
    start: int
    end: int
    pipe: str = ""
    stage: int | None = None
    task: int | None = None
    where: str = ""

    @property
    def label(self) -> str:
        return f"s{self.stage}·i{self.task}" if self.kind == "stage" else self.name


@dataclass
class Timeline:
    spans: list[Span] = field(default_factory=list)

    def add(self, span: Span) -> None:
        self.spans.append(span)

    @property
    def stages(self) -> list[Span]:
        return [s for s in self.spans if s.kind == "stage"]

    @property
    def ops(self) -> list[Span]:
        return [s for s in self.spans if s.kind != "stage"]

    # -- Chrome trace ------------------------------------------------------------------------
    def chrome_trace(self, core_order: list[str] | None = None) -> dict:
        cores = core_order or sorted({s.core for s in self.spans})
        tid = {c: i for i, c in enumerate(cores)}
        events: list[dict] = []
        for b in sorted({s.block for s in self.spans}):
            events.append({"ph": "M", "name": "process_name", "pid": b, "tid": 0, "args": {"name": f"block {b}"}})
        seen = set()
        for s in self.spans:
            if (s.block, s.core) not in seen:
                seen.add((s.block, s.core))
                events.append({"ph": "M", "name": "thread_name", "pid": s.block, "tid": tid[s.core],
                               "args": {"name": s.core}})
        # stages first so that equal-start ops nest inside them
        for s in sorted(self.spans, key=lambda s: (s.start, s.kind != "stage")):
            ev = {"ph": "X", "name": s.label, "cat": s.kind, "pid": s.block, "tid": tid[s.core],
                  "ts": s.start, "dur": max(s.end - s.start, 0), "args": {}}
            if s.kind == "stage":
                ev["args"] = {"stage_fn": s.name, "stage": s.stage, "task": s.task}
            else:
                ev["args"] = {"pipe": s.pipe, "at": s.where}
            events.append(ev)
        return {"traceEvents": events, "displayTimeUnit": "ns",
                "otherData": {"time_unit": "1 trace us = 1 simulated cycle"}}

    def write_trace(self, path, core_order: list[str] | None = None) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.chrome_trace(core_order), f, ensure_ascii=False)

    # -- terminal Gantt ----------------------------------------------------------------------
    def gantt_rows(self, cores: list[str], makespan: int, width: int = 80) -> dict[str, str]:
        """One text row per core: each character is makespan/width cycles; digits = stage."""
        rows = {}
        scale = max(makespan, 1) / width
        for c in cores:
            cells = ["·"] * width
            for s in self.stages:
                if s.core != c:
                    continue
                assert s.stage is not None, "every stage span carries its stage number"
                a, b = int(s.start / scale), max(int(s.end / scale), int(s.start / scale) + 1)
                for x in range(a, min(b, width)):
                    cells[x] = str(s.stage % 10)
            rows[c] = "".join(cells)
        return rows

    def render_gantt(self, console=None, cores: list[str] | None = None, makespan: int | None = None,
                     width: int = 80, title: str = "simulated timeline") -> None:
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        console = console or Console()
        cores = cores or sorted({s.core for s in self.spans})
        makespan = makespan if makespan is not None else max((s.end for s in self.spans), default=0)
        width = max(10, min(width, console.width - 20))
        palette = ["red", "green", "blue", "magenta", "cyan", "yellow", "bright_red", "bright_green", "bright_blue"]
        table = Table(title=f"{title} ({makespan} cycles; digit = stage number, · = no stage)")
        table.add_column("core", no_wrap=True, min_width=8)
        table.add_column("timeline", no_wrap=True)
        for c, row in self.gantt_rows(cores, makespan, width).items():
            text = Text()
            for ch in row:
                text.append(ch, style=palette[int(ch) % len(palette)] if ch.isdigit() else "dim")
            table.add_row(c, text)
        console.print(table)
