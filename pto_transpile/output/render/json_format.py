"""`--format json`: a JSON array, one object per diagnostic (1-based lines and columns)."""

from __future__ import annotations

import json


def render_json(diagnostics, sources=None) -> str:
    return json.dumps([d.to_dict() for d in diagnostics], indent=2, ensure_ascii=False) + "\n"
