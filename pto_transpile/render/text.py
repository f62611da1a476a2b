"""`--format text`: rustc/ruff-style blocks with the source line and a caret under the span.

error[PTO043]: cross-core buffer `p_mat_db` has 2 tile(s), ...
  --> kernel.py:99:16
   |
99 |     p_mat_db = pl.make_tile_group(
   |                ^^^^^^^^^^^^^^^^^^^
   = help: Give `p_mat_db` 3 tiles ...
"""

from __future__ import annotations

from rich.markup import escape

_STYLE = {"error": "bold red", "warning": "bold yellow", "note": "bold cyan"}


def _block(d, source_lines, color: bool) -> str:
    level = d.severity.value
    line_text = source_lines[d.line - 1] if source_lines and 0 < d.line <= len(source_lines) else ""
    expanded = line_text.expandtabs(8)
    prefix_len = len(line_text[: d.column - 1].expandtabs(8))
    if d.end_line == d.line:
        width = max(1, len(line_text[: d.end_column - 1].expandtabs(8)) - prefix_len)
    else:
        width = max(1, len(expanded.rstrip()) - prefix_len)
    gutter = " " * len(str(d.line))
    if color:
        style = _STYLE[level]
        out = [f"[{style}]{level}[{d.code}][/]: [bold]{escape(d.message)}[/]",
               f"{gutter}[blue]-->[/] {escape(d.path)}:{d.line}:{d.column}"]
        if line_text:
            out += [f"{gutter} [blue]|[/]", f"[blue]{d.line} |[/] {escape(expanded)}",
                    f"{gutter} [blue]|[/] {' ' * prefix_len}[{style}]{'^' * width}[/]"]
        for r in d.related:
            out.append(f"{gutter} [blue]=[/] note: {escape(r.message)} at "
                       f"{escape(r.path or d.path)}:{r.line}:{r.column}")
        if d.hint:
            out.append(f"{gutter} [blue]=[/] [bold]help[/]: {escape(d.hint)}")
    else:
        out = [f"{level}[{d.code}]: {d.message}", f"{gutter}--> {d.path}:{d.line}:{d.column}"]
        if line_text:
            out += [f"{gutter} |", f"{d.line} | {expanded}", f"{gutter} | {' ' * prefix_len}{'^' * width}"]
        for r in d.related:
            out.append(f"{gutter} = note: {r.message} at {r.path or d.path}:{r.line}:{r.column}")
        if d.hint:
            out.append(f"{gutter} = help: {d.hint}")
    return "\n".join(out)


def render_text(diagnostics, sources=None, color: bool = False) -> str:
    """`sources` maps a path to its text, for the source line under each diagnostic."""
    sources = sources or {}
    blocks = []
    for d in diagnostics:
        text = sources.get(d.path)
        blocks.append(_block(d, text.splitlines() if text else None, color))
    errors = sum(1 for d in diagnostics if d.is_error)
    notes = sum(1 for d in diagnostics if d.severity.value == "note")
    warnings = len(diagnostics) - errors - notes
    if diagnostics:
        summary = f"found {errors} error(s) and {warnings} warning(s)" + (f", {notes} note(s)" if notes else "")
        blocks.append(f"[bold]{summary}[/]" if color else summary)
    return "\n\n".join(blocks) + ("\n" if blocks else "")
