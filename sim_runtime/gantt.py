"""Terminal Gantt chart of one or more runs (rich): a row per core, a cell per stage invocation.

All runs share one time scale, so a serial run is drawn longer than its pipelined version
by exactly the speedup. A cell wide enough shows its `sN·iM` label; a narrower one `sN`,
and one narrower still its stage number's last digit (each followed by a space, which keeps
neighbouring cells apart). Stages of one core that overlap in time (they keep different pipes busy) are
drawn on extra lines under the core's first. The chart fits the console's width.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim_runtime.timeline import Span, Timeline, lanes

PALETTE = ("red", "green", "blue", "magenta", "cyan", "yellow", "bright_red", "bright_green", "bright_blue")

Cell = tuple[str, "int | None"]


@dataclass
class GanttRun:
    label: str
    timeline: Timeline
    cores: list[str]
    makespan: int


def _line(spans: list[Span], scale: float, width: int) -> list[Cell]:
    cells: list[Cell] = [("·", None)] * width
    for s in spans:
        assert s.stage is not None, "every stage span carries its stage number"
        a = min(int(s.start / scale), width - 1)
        b = min(max(int(s.end / scale), a + 1), width)
        short = f"s{s.stage}"
        text = s.label if b - a > len(s.label) else short if b - a > len(short) else str(s.stage % 10)
        for x in range(a, b):
            i = x - a
            cells[x] = (text[i] if i < len(text) else " ", s.stage)
    return cells


def gantt_rows(run: GanttRun, scale: float, width: int) -> list[tuple[str, list[Cell]]]:
    """(row name, `width` cells of (character, stage or None)): a line per core and lane;
    one cell is `scale` cycles."""
    rows = []
    for core in run.cores:
        spans = sorted((s for s in run.timeline.stages if s.core == core), key=lambda s: s.start)
        lane_of = lanes(spans)
        for lane in range(max(lane_of, default=0) + 1):
            mine = [s for s, k in zip(spans, lane_of, strict=True) if k == lane]
            rows.append((core if lane == 0 else "", _line(mine, scale, width)))
    return rows


def _key(runs: list[GanttRun]) -> str:
    """`s1 = project, s2 = finish`: each stage number drawn, with its function's name."""
    names = sorted({(s.stage, s.stage_fn or s.name) for run in runs for s in run.timeline.stages
                    if s.stage is not None})
    return ", ".join(f"s{n} = {name}" for n, name in names)


def render_gantt(runs: list[GanttRun], console=None, title: str = "simulated timeline") -> None:
    from rich.console import Console
    from rich.text import Text

    console = console or Console()
    longest = max((r.makespan for r in runs), default=0)
    label_width = max((len(c) for r in runs for c in r.cores), default=8) + 1
    width = max(10, console.width - label_width - 1)
    scale = max(longest, 1) / width
    rows = [gantt_rows(run, scale, width) for run in runs]
    stacked = any(name == "" for run_rows in rows for name, _ in run_rows)
    console.print(Text(f"{title}: one character = {scale:.0f} cycles; sN·iM = stage N on the block's task M "
                       "(counted from 0 on each block)"
                       + ("; a core's stages that overlap in time are drawn on the lines under it" if stacked else ""),
                       style="bold"), soft_wrap=True)
    key = _key(runs)
    if key:
        console.print(Text(key), soft_wrap=True)
    for run, run_rows in zip(runs, rows, strict=True):
        console.print(Text(f"{run.label}: {run.makespan} cycles", style="italic"), soft_wrap=True)
        for name, cells in run_rows:
            line = Text(f"{name:<{label_width}}", style="bold")
            for ch, stage in cells:
                line.append(ch, style="dim" if stage is None else f"black on {PALETTE[stage % len(PALETTE)]}")
            console.print(line, no_wrap=True, overflow="crop")
