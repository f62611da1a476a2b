"""Renderers: one per output format, each a function of the diagnostics (and sources)."""

from pto_transpile.render.github import render_github
from pto_transpile.render.json_format import render_json
from pto_transpile.render.sarif import render_sarif
from pto_transpile.render.text import render_text

RENDERERS = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}

__all__ = ["RENDERERS", "render_github", "render_json", "render_sarif", "render_text"]
