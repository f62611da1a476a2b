"""`--format text`: rustc/ruff-style blocks with the source line and a caret under the span.

error[PTO043]: cross-core buffer `p_mat_db` has 2 tile(s), ...
  --> kernel.py:99:16
   |
99 |     p_mat_db = pl.make_tile_group(
   |                ^^^^^^^^^^^^^^^^^^^
   = help: Give `p_mat_db` 3 tiles ...
"""

from __future__ import annotations

import os
import unicodedata

from pto_transpile.read.layout import source_lines

_STYLE = {"error": "bold red", "warning": "bold yellow", "note": "bold cyan"}


def escape(text: str) -> str:
    """Rich markup escaping, imported only when colour is on."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def wants_color(choice: str, stream, environ=None) -> bool:
    """`--color always|never`, or for `auto`: NO_COLOR (set, non-empty) turns colour off,
    FORCE_COLOR (set, non-empty, not `0`) turns it on, else colour on a terminal only."""
    environ = os.environ if environ is None else environ
    if choice != "auto":
        return choice == "always"
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def print_markup(text: str, stream) -> None:
    """Print rich markup to `stream` in colour, whatever the stream is (a pipe, a CI log)."""
    from rich.console import Console

    Console(file=stream, highlight=False, soft_wrap=True, force_terminal=True, no_color=False,
            color_system="standard").print(text, end="")


def _block(d, source_lines, color: bool) -> str:
    level = d.severity.value
    line_text = source_lines[d.line - 1] if source_lines and 0 < d.line <= len(source_lines) else ""
    expanded = line_text.expandtabs(8)
    prefix_len = _cells(line_text[: d.column - 1].expandtabs(8))
    if d.end_line == d.line:
        width = max(1, _cells(line_text[: d.end_column - 1].expandtabs(8)) - prefix_len)
    else:
        width = max(1, _cells(expanded.rstrip()) - prefix_len)
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


def _cells(text: str) -> int:
    """The terminal cells `text` takes: two for a wide character (CJK, full-width forms), none
    for a combining one, one for any other; the caret under a span after a Chinese comment or
    string lands under it (probe h91: code points put it three cells left)."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def render_blocks(diagnostics, sources=None, color: bool = False) -> str:
    """One block per diagnostic; `sources` maps a path to its text, for the source line."""
    sources = sources or {}
    blocks = []
    for d in diagnostics:
        text = sources.get(d.path)
        blocks.append(_block(d, source_lines(text) if text else None, color))
    return "\n\n".join(blocks)


def summary(diagnostics, color: bool = False, hidden: int = 0) -> str:
    """The closing count line of a text report (with the errors --select/--ignore hid, which
    still stop a file's output)."""
    errors = sum(1 for d in diagnostics if d.is_error)
    notes = sum(1 for d in diagnostics if d.severity.value == "note")
    warnings = len(diagnostics) - errors - notes
    line = f"found {errors} error(s) and {warnings} warning(s)" + (f", {notes} note(s)" if notes else "")
    if hidden:
        line += f", and {hidden} error(s) not shown (filtered by --select/--ignore), which stop the output"
    return f"[bold]{line}[/]" if color else line


def render_text(diagnostics, sources=None, color: bool = False) -> str:
    """The whole report of one set of diagnostics: the blocks, then the summary."""
    if not diagnostics:
        return ""
    return render_blocks(diagnostics, sources, color) + "\n\n" + summary(diagnostics, color) + "\n"
