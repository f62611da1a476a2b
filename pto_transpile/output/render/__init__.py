"""Renderers: one per output format, each a function of the diagnostics (and sources).

A renderer's module is imported when its format is used (the SARIF one reads the rule
catalogue, the coloured text one rich), so a run pays only for the format it prints.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

#: format name -> (module, function); each takes (diagnostics, sources), the text one also `color`
_RENDERERS = {
    "text": ("pto_transpile.output.render.text", "render_text"),
    "json": ("pto_transpile.output.render.json_format", "render_json"),
    "sarif": ("pto_transpile.output.render.sarif", "render_sarif"),
    "github": ("pto_transpile.output.render.github", "render_github"),
}
FORMATS = sorted(_RENDERERS)
#: formats that are one document for the whole run, printed when every file is done
WHOLE_RUN = frozenset({"json", "sarif"})


def renderer(fmt: str) -> Callable[..., str]:
    module, name = _RENDERERS[fmt]
    return getattr(importlib.import_module(module), name)


class Sink:
    """Where diagnostics go as each file is done. Text and GitHub lines are printed per file,
    in file order (the text summary once, at the end); json and SARIF are one document, so
    they are printed at the end, and printed even when empty (`[]`, a log without results)."""

    def __init__(self, fmt: str, stream, color: bool = False):
        self.fmt, self.stream, self.color = fmt, stream, color
        self.all: list = []
        #: (file, errors --select/--ignore hid, which still stopped its output)
        self.hidden: list[tuple[str, int]] = []

    def blocked(self, path: str, errors: int) -> None:
        """`errors` of `path` hidden by --select/--ignore stopped its output (the exit status is 1):
        said in the report itself, in every format but json (a list of diagnostics), not on
        stderr alone (study ux3: a SARIF log without a result, and exit status 1)."""
        self.hidden.append((path, errors))
        if self.fmt == "github":
            from pto_transpile.output.render.github import render_hidden

            self._write(render_hidden(path, errors))

    def file(self, diagnostics, sources: dict[str, str]) -> None:
        self.all += diagnostics
        if self.fmt in WHOLE_RUN or not diagnostics:
            return
        if self.fmt == "text":
            from pto_transpile.output.render.text import render_blocks

            self._write(render_blocks(diagnostics, sources, color=self.color) + "\n\n")
        else:
            self._write(renderer(self.fmt)(diagnostics, sources))

    def close(self) -> None:
        if self.fmt == "sarif":
            self._write(renderer(self.fmt)(self.all, {}, hidden=self.hidden))
        elif self.fmt in WHOLE_RUN:
            self._write(renderer(self.fmt)(self.all, {}))
        elif self.fmt == "text" and (self.all or self.hidden):
            from pto_transpile.output.render.text import summary

            self._write(summary(self.all, color=self.color, hidden=sum(n for _, n in self.hidden)) + "\n")

    def _write(self, text: str) -> None:
        if self.color:
            from pto_transpile.output.render.text import print_markup

            print_markup(text, self.stream)
        else:
            self.stream.write(text)
            self.stream.flush()


def __getattr__(name: str):
    """`render_text`, `render_json`, ... imported on first use."""
    for module, function in _RENDERERS.values():
        if function == name:
            return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'pto_transpile.output.render' has no attribute {name!r}")


__all__ = ["FORMATS", "Sink", "renderer"]
