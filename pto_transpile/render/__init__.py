"""Renderers: one per output format, each a function of the diagnostics (and sources)."""

from collections.abc import Callable

from pto_transpile.render.github import render_github
from pto_transpile.render.json_format import render_json
from pto_transpile.render.sarif import render_sarif
from pto_transpile.render.text import render_text

#: format name -> renderer; each takes (diagnostics, sources), the text one also `color`
RENDERERS: dict[str, Callable[..., str]] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}

__all__ = ["RENDERERS", "render_github", "render_json", "render_sarif", "render_text"]
