"""A pipeline loop's runs as inline SVG, drawn like the feature description's figure.

A row per core (or, in the second drawing, per pipe of each core); a cell per stage
invocation labelled `sN·iM` whose width is its time. All runs of one loop share a time
scale, so the serial run is longer than the pipelined one by the speedup. The pipelined run
is shaded by phase (fill: the bounding core waits for its first input; steady state;
drain: the other cores finish after it) and the bounding core's idle gaps are marked. Each
`set_cross_core` -> `wait_cross_core` pair is an arrow, shown when a cell it leaves or
enters is hovered. A loop of many iterations is drawn as its first and last iterations with
the steady state between them cut out and summarised, so the page stays small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from sim_runtime.bound import LoopBound
from sim_runtime.timeline import Span, lanes

#: Above this many iterations, only the first and last `KEPT` are drawn.
MAX_DRAWN_ITERATIONS = 16
KEPT = 4
WIDTH = 1000  #: pixels of the longest run's time axis
LABEL_WIDTH = 90
ROW = 22  #: pixels per lane of a row
CUT = 70  #: pixels of the band that stands for the cut-out steady state
#: Pipes in the order data flows through a core: loads, on-chip moves, compute, stores, scalar.
PIPE_ORDER = ("MTE2", "MTE1", "M", "V", "FIX", "MTE3", "S")
PALETTE = ("#e4572e", "#29a3a3", "#f3a712", "#669bbc", "#a8c686", "#b05fa6", "#7d6b91", "#d98e73")


def stage_colour(stage: int | None) -> str:
    return "#bbb" if stage is None else PALETTE[(stage - 1) % len(PALETTE)]


@dataclass
class Window:
    """The part of a run drawn for one loop: [start, end], minus the cut (cut_from, cut_to)."""

    start: int
    end: int
    cut_from: int | None = None
    cut_to: int | None = None
    cut_tasks: tuple[int, int] = (0, 0)  #: the first and last iteration cut out

    @property
    def shown(self) -> int:
        cut = (self.cut_to - self.cut_from) if self.cut_from is not None and self.cut_to is not None else 0
        return self.end - self.start - cut

    def hidden(self, s: Span) -> bool:
        return self.cut_from is not None and self.cut_to is not None and s.start >= self.cut_from \
            and s.end <= self.cut_to


def window(stages: list[Span], bound: LoopBound) -> Window:
    """The loop's extent in a run, with the middle iterations cut when there are many."""
    w = Window(bound.start, bound.end)
    n = bound.iterations
    if n > MAX_DRAWN_ITERATIONS:
        first = [s for s in stages if s.task == KEPT]
        last = [s for s in stages if s.task == n - KEPT - 1]
        if first and last:
            w.cut_from = min(s.start for s in first)
            w.cut_to = max(s.end for s in last)
            w.cut_tasks = (KEPT, n - KEPT - 1)
            if w.cut_to <= w.cut_from:
                w.cut_from = w.cut_to = None
    return w


@dataclass
class Scale:
    px_per_cycle: float

    def x(self, w: Window, t: int) -> float:
        """Pixel of cycle `t` of window `w` (cycles inside the cut map onto its band)."""
        t = min(max(t, w.start), w.end)
        if w.cut_from is None or w.cut_to is None or t <= w.cut_from:
            return LABEL_WIDTH + (t - w.start) * self.px_per_cycle
        base = LABEL_WIDTH + (w.cut_from - w.start) * self.px_per_cycle
        if t < w.cut_to:
            return base + CUT * (t - w.cut_from) / (w.cut_to - w.cut_from)
        return base + CUT + (t - w.cut_to) * self.px_per_cycle


@dataclass
class Row:
    name: str
    spans: list[Span]
    lanes: list[int] = field(default_factory=list)  #: lane of each span (overlapping cells stack)

    @property
    def height(self) -> int:
        return ROW * (max(self.lanes, default=0) + 1)


def _tip(s: Span) -> str:
    what = f"s{s.stage}·i{s.task}: stage {s.stage} ({s.stage_fn or s.name}) on iteration {s.task}"
    if s.kind != "stage":
        what = f"{s.name} on {s.pipe}, part of {what}"
    return f"{what}\n{s.core}: cycles {s.start}–{s.end} ({s.end - s.start} cycles)"


def _cell(s: Span, w: Window, scale: Scale, y: int, ident: str, label: bool) -> str:
    x0, x1 = scale.x(w, s.start), scale.x(w, s.end)
    width = max(x1 - x0, 1.0)
    text = f"s{s.stage}·i{s.task}"
    out = [f'<g class="cell-g"><rect class="cell" id="{ident}" x="{x0:.1f}" y="{y + 2}" width="{width:.1f}" '
           f'height="{ROW - 4}" fill="{stage_colour(s.stage)}" data-stage="{s.stage}" data-iteration="{s.task}" '
           f'data-cycles="{s.end - s.start}" data-tip="{escape(_tip(s))}"/>']
    if label and width > 7 * len(text):
        out.append(f'<text class="cell-label" x="{x0 + width / 2:.1f}" y="{y + ROW / 2 + 4}">{text}</text>')
    out.append("</g>")
    return "".join(out)


def run_svg(label: str, cycles: int, stages: list[Span], ops: list[Span], spans: list[Span], cores: list[str],
            bound: LoopBound, scale: Scale, by_pipe: bool, key: str, shade: bool) -> tuple[str, int]:
    """One run of one loop (`spans`: the run's whole timeline); returns the SVG and the
    number of stage cells drawn."""
    w = window(stages, bound)
    if by_pipe:
        rows = [Row(f"{c} {p}", sorted((s for s in ops if s.core == c and s.pipe == p), key=lambda s: s.start))
                for c in cores for p in sorted({s.pipe for s in ops if s.core == c}, key=PIPE_ORDER.index)]
    else:
        rows = [Row(c, sorted((s for s in stages if s.core == c), key=lambda s: s.start)) for c in cores]
    for r in rows:
        r.spans = [s for s in r.spans if not w.hidden(s)]
        r.lanes = lanes(r.spans)
    top = 34
    height = top + sum(r.height for r in rows) + 26
    right = scale.x(w, w.end)
    parts = [f'<svg class="timeline" data-run="{escape(label)}" data-view="{"pipe" if by_pipe else "core"}" '
             f'width="{max(right + 70, 720):.0f}" height="{height}" xmlns="http://www.w3.org/2000/svg">',
             f'<text class="run-title" x="0" y="14">{escape(label)}: {cycles} cycles in all, this loop '
             f'{bound.actual} cycles ({w.start}–{w.end})</text>']
    if shade:
        parts += _phases(w, bound, scale, top, height - 26)
    if w.cut_from is not None and w.cut_to is not None:
        x0, x1 = scale.x(w, w.cut_from), scale.x(w, w.cut_to)
        parts.append(f'<rect class="cut" x="{x0:.1f}" y="{top}" width="{x1 - x0:.1f}" height="{height - top - 26}"/>'
                     f'<text class="cut-label" x="{(x0 + x1) / 2:.1f}" y="{height - 12}">iterations '
                     f'{w.cut_tasks[0]}–{w.cut_tasks[1]}: {w.cut_to - w.cut_from} cycles, not drawn</text>')
    y = top
    drawn = 0
    ids: dict[int, str] = {}
    centres: dict[int, float] = {}  # y of each drawn cell's middle
    for row in rows:
        parts.append(f'<text class="row-label" x="0" y="{y + ROW / 2 + 4}">{escape(row.name)}</text>'
                     f'<line class="row-line" x1="{LABEL_WIDTH}" x2="{right:.1f}" y1="{y + row.height}" '
                     f'y2="{y + row.height}"/>')
        if shade and not by_pipe and row.name == bound.bounding.core:
            for a, b in bound.gaps:
                if not (w.cut_from is not None and w.cut_to is not None and a >= w.cut_from and b <= w.cut_to):
                    xa, xb = scale.x(w, a), scale.x(w, b)
                    parts.append(f'<rect class="gap" x="{xa:.1f}" y="{y}" width="{max(xb - xa, 1):.1f}" '
                                 f'height="{row.height}" data-tip="{escape(row.name)} idles {b - a} cycles '
                                 f'({a}–{b})"/>')
        for i, (s, lane) in enumerate(zip(row.spans, row.lanes, strict=True)):
            ident = f"{key}-{row.name.replace(' ', '-').replace('.', '_')}-{i}"
            ids[id(s)] = ident
            centres[id(s)] = y + lane * ROW + ROW / 2
            parts.append(_cell(s, w, scale, y + lane * ROW, ident, label=not by_pipe))
            drawn += s.kind == "stage"
        y += row.height
    if not by_pipe:
        parts.append(_arrows(spans, rows, w, scale, ids, centres, top))
    parts.append("</svg>")
    return "".join(parts), drawn


def _phases(w: Window, bound: LoopBound, scale: Scale, top: int, bottom: int) -> list[str]:
    out = []
    phases = (("fill", bound.start, bound.start + bound.fill), ("steady", bound.start + bound.fill,
              bound.end - bound.drain), ("drain", bound.end - bound.drain, bound.end))
    for name, a, b in phases:
        if b <= a:
            continue
        xa, xb = scale.x(w, a), scale.x(w, b)
        out.append(f'<rect class="phase phase-{name}" x="{xa:.1f}" y="{top - 12}" width="{xb - xa:.1f}" '
                   f'height="{bottom - top + 12}"/>'
                   f'<text class="phase-label" x="{xa + 3:.1f}" y="{top - 2}">{name} {b - a}</text>')
    return out


def _arrows(spans: list[Span], rows: list[Row], w: Window, scale: Scale, ids: dict[int, str],
            centres: dict[int, float], top: int) -> str:
    """set -> wait arrows between the cells they leave and enter (shown on hover). `spans` is
    the run's timeline in each core's program order (a stage is recorded when it ends), so a
    set belongs after the last stage its core recorded before it, and a wait guards the next."""
    centre: dict[str, float] = {}
    y = top
    for row in rows:
        centre[row.name] = y + ROW / 2
        y += row.height
    origin: dict[int, Span] = {}  # set ident -> the stage it follows
    target: dict[int, Span] = {}  # id(wait) -> the stage it guards
    last: dict[str, Span] = {}
    pending: dict[str, list[Span]] = {}
    sets: dict[int, Span] = {}
    waits: list[Span] = []
    for s in spans:
        if s.kind == "stage":
            for wait in pending.pop(s.core, []):
                target[id(wait)] = s
            last[s.core] = s
        elif s.kind == "sync":
            sets[s.ident] = s
            if s.core in last:
                origin[s.ident] = last[s.core]
        elif s.kind == "wait":
            pending.setdefault(s.core, []).append(s)
            waits.append(s)
    out = ['<g class="arrows">']
    for wait in waits:
        for link in wait.links:
            src = sets.get(link)
            if src is None or src.core not in centre or wait.core not in centre or w.hidden(src) or w.hidden(wait):
                continue
            if not (w.start <= src.start <= w.end and w.start <= wait.end <= w.end):
                continue
            ends = [c for c in (origin.get(link), target.get(id(wait))) if c is not None and id(c) in ids]
            y1 = centres[id(ends[0])] if ends and ends[0] is origin.get(link) else centre[src.core]
            y2 = centres[id(ends[-1])] if ends and ends[-1] is target.get(id(wait)) else centre[wait.core]
            out.append(f'<line class="flow" data-cells="{" ".join(ids[id(c)] for c in ends)}" '
                       f'x1="{scale.x(w, src.start):.1f}" y1="{y1:.1f}" x2="{scale.x(w, wait.end):.1f}" '
                       f'y2="{y2:.1f}" marker-end="url(#arrowhead)"><title>set at cycle {src.start} '
                       f'({escape(src.where)}) releases the wait ending at {wait.end} ({escape(wait.where)})'
                       "</title></line>")
    out.append("</g>")
    return "".join(out)
