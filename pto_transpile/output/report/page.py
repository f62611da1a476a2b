"""`--report FILE.html`: one self-contained page about one transpiled kernel file.

Everything is inline (SVG, CSS, a little script): the page loads nothing, so it can be
mailed or attached to a review. It shows, in reading order: what was run and whether the
two versions agree; per pipeline loop, the bound and the serial and pipelined timelines;
the `--preload auto` candidates; the diagnostics with their source lines; the change made
to the input.
"""

from __future__ import annotations

import difflib
from html import escape
from typing import Any

from pto_transpile.output.report.assets import CSS, JS
from pto_transpile.output.report.timeline_svg import (
    CUT,
    KEPT,
    LABEL_WIDTH,
    PALETTE,
    WIDTH,
    Scale,
    run_svg,
    window,
)
from pto_transpile.simulate.pipeview import KernelView, LoopView
from sim_runtime.bound import LoopBound

#: Runs share a time scale unless one of them would be drawn this much narrower than alone.
MIN_SHARE = 0.4

DEFS = ('<svg width="0" height="0" style="position:absolute"><defs>'
        '<marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#222"/></marker>'
        '<pattern id="gap-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<rect width="6" height="6" fill="#fde2e2"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c62828" '
        'stroke-width="1.5"/></pattern>'
        '<pattern id="cut-hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<rect width="8" height="8" fill="#f2f2f2"/><line x1="0" y1="0" x2="0" y2="8" stroke="#ccc" '
        'stroke-width="2"/></pattern></defs></svg>')


def render_report(path: str, source: str, code: str | None, diagnostics_text: str, kernels: list[KernelView],
                  preload_choice=None) -> str:
    """The page (text of an HTML file)."""
    body = [f"<h1>pto-transpile report: {escape(path)}</h1>",
            '<p class="lead">The serial kernel and its pipelined version, run on the emulated NPU '
            "(sim_runtime) on the same inputs. Cycles come from the emulator's cost model, a model and not a "
            "measurement.</p>"]
    for view in kernels:
        body += _kernel(view)
    if not kernels:
        body.append("<p>No kernel was simulated.</p>")
    if preload_choice is not None:
        body += _candidates(preload_choice)
    body += _diagnostics(diagnostics_text)
    body += _diff(path, source, code)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<link rel="icon" href="data:,">'
            f"<title>pto-transpile report: {escape(path)}</title><style>{CSS}</style></head>"
            f'<body>{DEFS}<div id="tip"></div>{"".join(body)}<script>{JS}</script></body></html>\n')


def _kernel(view: KernelView) -> list[str]:
    out = [f"<h2>Kernel <code>{escape(view.name)}</code></h2>", '<table class="numbers"><tr><th>version</th>'
           "<th>cycles</th><th>speedup</th><th>verdict</th></tr>"]
    for row in view.report.rows:
        cycles = "-" if row.cycles is None else str(row.cycles)
        speed = "-" if row.speedup is None else f"{row.speedup:.2f}x"
        verdict = escape(row.verdict_text.splitlines()[0] if row.verdict_text else row.verdict)
        css = "ok" if row.verdict == "ok" else "bad"
        out.append(f'<tr><td>{escape(row.version)}</td><td class="num">{cycles}</td><td class="num">{speed}</td>'
                   f'<td class="{css}">{verdict}</td></tr>')
    out.append("</table>")
    for row in view.report.rows:
        if row.message:
            out.append(f"<pre>{escape(row.version)}: {escape(row.verdict_text)}</pre>")
    for loop in view.loops:
        out += _loop(view, loop)
    return out


def _loop(view: KernelView, loop: LoopView) -> list[str]:
    out = [f'<div class="loop"><h3>{escape(loop.title)}</h3>']
    bound = loop.pipelined
    if bound is not None:
        items = "".join(f"<li>{escape(line)}</li>" for line in bound.detail())
        out.append(f'<div class="bound"><div class="headline">{escape(bound.summary())}</div><ul>{items}</ul></div>')
    runs: list[tuple[str, Any, LoopBound]] = []
    for v, b in (("serial", loop.serial), (view.label, loop.pipelined)):
        r = view.run(v)
        if r is not None and b is not None:
            runs.append((v, r, b))
    if not runs:
        out.append("<p>No run of this loop finished: nothing to draw.</p></div>")
        return out
    stages_of = {v: [s for s in r.timeline.stages if not loop.stage_fns or s.name in loop.stage_fns]
                 for v, r, _ in runs}
    windows = {v: window(stages_of[v], b) for v, _, b in runs}
    own = {v: (WIDTH - (CUT if windows[v].cut_from is not None else 0)) / max(windows[v].shown, 1)
           for v, _, _ in runs}
    shared = min(own.values())
    # one time scale shows the speedup as lengths, unless it would shrink a run past reading
    separate = any(shared / px < MIN_SHARE for px in own.values())
    scales = {v: Scale(own[v] if separate else shared) for v in own}
    out.append(_legend(stages_of, windows, separate))
    out.append('<div class="views">draw a row per <button class="on" data-view="core">core</button>'
               '<button data-view="pipe">pipe</button> <label><input type="checkbox" class="all-arrows"> '
               "show every set → wait arrow</label></div>")
    for view_kind in ("core", "pipe"):
        hidden = "" if view_kind == "core" else " hidden"
        out.append(f'<div class="pane scroll{hidden}" data-view="{view_kind}">')
        for v, r, b in runs:
            fns = set(loop.stage_fns)
            ops = [s for s in r.timeline.spans if s.kind == "op" and s.stage is not None
                   and (not fns or s.stage_fn in fns)]
            svg, _ = run_svg(v, r.cycles, stages_of[v], ops, r.timeline.spans, list(r.cores), b, scales[v],
                             view_kind == "pipe", f"{view.name}-{loop.index}-{v.replace(' ', '_')}-{view_kind}",
                             shade=v != "serial")
            out.append(svg)
        out.append("</div>")
    out.append("</div>")
    return out


def _legend(stages_of: dict, windows: dict, separate: bool) -> str:
    numbers = sorted({(s.stage, s.name) for spans in stages_of.values() for s in spans if s.stage is not None})
    swatches = "".join(f'<span class="sw" style="background:{PALETTE[(n - 1) % len(PALETTE)]}"></span>'
                       f"s{n} = {escape(name)}" for n, name in numbers)
    cut = any(w.cut_from is not None for w in windows.values())
    note = (f" Only the first and last {KEPT} iterations are drawn; the hatched band stands for the steady "
            "state between them." if cut else "")
    if separate:
        note += " Each run is drawn at its own time scale (on one scale the shorter would be too narrow to read)."
    return ('<div class="legend">A cell <b>sN·iM</b> is stage N working on the block&#39;s task M (counted from 0 '
            "on each block); its width is its time "
            f"(first op start to last op end). Hover a cell for its cycles and the set → wait arrows that "
            f"release it or that it raises.{swatches}"
            '<span class="sw" style="background:#fff3cd"></span>fill: the bounding core waits for its first input'
            '<span class="sw" style="background:#e8f4ea"></span>steady state'
            '<span class="sw" style="background:#e3e7f6"></span>drain: the other cores finish after it'
            f'<span class="sw" style="background:#fde2e2;border:1px solid #c62828"></span>the bounding core '
            f"idles.{note}</div>")


def _candidates(choice) -> list[str]:
    cands = choice.candidates
    if not cands:
        return [f"<h2>--preload auto</h2><p>{escape(choice.note)}</p>"] if choice.note else []
    out = ["<h2>--preload auto: the candidates</h2>", '<p class="lead">Every preload the rules accept is '
           "transpiled and simulated; the fewest cycles win (the smaller preload on a tie).</p>"]
    for loop in sorted({c.loop for c in cands}):
        mine = [c for c in cands if c.loop == loop]
        top = max([c.cycles or 0 for c in mine] + [choice.serial_cycles or 0, 1])
        height = 26 * (len(mine) + (1 if choice.serial_cycles else 0)) + 10
        rows = []
        y = 4
        entries = ([("serial", choice.serial_cycles, "", False)] if choice.serial_cycles else [])
        for c in mine:
            note = c.verdict if c.verdict != "ok" else (c.bound or "")
            if c.same_as is not None:
                note = f"the same kernel as preload {c.same_as}"
            entries.append((f"preload {c.preload}", c.cycles, note, c.chosen))
        for name, cycles, note, chosen in entries:
            width = 0 if not cycles else (WIDTH - 380) * cycles / top
            css = "bar chosen" if chosen else "bar"
            rows.append(f'<text class="bar-label" x="0" y="{y + 15}">{escape(name)}</text>'
                        f'<rect class="{css}" x="{LABEL_WIDTH}" y="{y}" width="{width:.1f}" height="20" '
                        f'data-tip="{escape(name)}: {cycles if cycles else "not simulated"} cycles"/>'
                        f'<text class="bar-label" x="{LABEL_WIDTH + width + 6:.1f}" y="{y + 15}">'
                        f'{cycles if cycles else "-"}{" (chosen)" if chosen else ""}  {escape(note)}</text>')
            y += 26
        out.append(f"<h3>pipeline loop {loop}</h3><svg class=\"candidates\" width=\"{WIDTH + LABEL_WIDTH}\" "
                   f'height="{height}" xmlns="http://www.w3.org/2000/svg">{"".join(rows)}</svg>')
    if choice.note:
        out.append(f"<p>{escape(choice.note)}</p>")
    return out


def _diagnostics(text: str) -> list[str]:
    if not text.strip():
        return ["<h2>Diagnostics</h2><p>None: every rule passed.</p>"]
    return ["<h2>Diagnostics</h2>", f"<pre>{escape(text)}</pre>"]


def _diff(path: str, source: str, code: str | None) -> list[str]:
    if code is None:
        return ["<h2>Change to the input</h2><p>Nothing was generated.</p>"]
    lines = difflib.unified_diff(source.splitlines(keepends=True), code.splitlines(keepends=True), fromfile=path,
                                 tofile=f"{path} (pipelined)")
    styled = []
    for line in lines:
        css = "add" if line.startswith("+") else "del" if line.startswith("-") else "hunk" if line.startswith("@@") \
            else ""
        text = escape(line.rstrip("\n"))
        styled.append(f'<span class="{css}">{text}</span>' if css else text)
    return ["<h2>Change to the input</h2>", f"<details><summary>{len(styled)} lines of unified diff</summary>"
            f"<pre>{chr(10).join(styled)}</pre></details>"]
