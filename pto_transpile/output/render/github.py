"""`--format github`: GitHub Actions workflow commands, shown as annotations on the PR diff."""

from __future__ import annotations

from pto_transpile.output.render.hidden import hidden_words


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(diagnostics, sources=None) -> str:
    lines = []
    for d in diagnostics:
        level = {"error": "error", "warning": "warning", "note": "notice"}[d.severity.value]
        props = (f"file={_escape_property(d.path)},line={d.line},col={d.column},"
                 f"endLine={d.end_line},endColumn={d.end_column},title={_escape_property(d.code + ' ' + d.name)}")
        # the other locations (a race's other access): an annotation has one place, so they are
        # named in its text, as the text report's notes name them
        notes = "".join(f" (note: {r.message} at {r.path or d.path}:{r.line}:{r.column})" for r in d.related)
        text = d.message + notes + (f" (hint: {d.hint})" if d.hint else "")
        lines.append(f"::{level} {props}::{_escape_data(d.code + ' ' + text)}")
    return "".join(line + "\n" for line in lines)


def render_hidden(path: str, errors: int) -> str:
    """The annotation of a file whose output errors hidden by --select/--ignore stopped."""
    props = f"file={_escape_property(path)},line=1,title=pto-transpile"
    return f"::error {props}::{_escape_data(hidden_words(errors))}\n"
