"""`--format sarif`: SARIF 2.1.0, the format GitHub code scanning uploads."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from urllib.parse import quote

from pto_transpile.rules import registry

__version__ = "0.1.0"

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_sarif(diagnostics, sources=None) -> str:
    rules = registry()
    used = sorted({d.code for d in diagnostics})
    index = {code: i for i, code in enumerate(used)}
    driver_rules = []
    for code in used:
        r = rules.get(code)
        driver_rules.append({
            "id": code,
            "name": r.name if r else code,
            "shortDescription": {"text": r.title if r else code},
            "fullDescription": {"text": (r.doc or r.title) if r else code},
            "help": {"text": r.help_text if r else ""},
            "defaultConfiguration": {"level": "error" if r is None else r.severity.value},
        })
    results = []
    for d in diagnostics:
        result = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": d.severity.value,
            "message": {"text": d.message + (f"\nhint: {d.hint}" if d.hint else "")},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": file_uri(d.path)},
                    "region": {"startLine": d.line, "startColumn": d.column,
                               "endLine": d.end_line, "endColumn": d.end_column},
                }
            }],
        }
        if d.related:
            result["relatedLocations"] = [{
                "id": i,
                "message": {"text": r.message},
                "physicalLocation": {
                    "artifactLocation": {"uri": file_uri(r.path or d.path)},
                    "region": {"startLine": r.line, "startColumn": r.column},
                },
            } for i, r in enumerate(d.related)]
        results.append(result)
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "pto-transpile", "version": __version__, "rules": driver_rules}},
            "results": results,
        }],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def file_uri(path: str) -> str:
    """A file's path as the URI reference SARIF asks for: a relative path percent-encoded
    (`sp%20ace/k.py`), an absolute one as a `file:` URI; the standard input as `stdin`."""
    if path.startswith("<") and path.endswith(">"):
        return quote(path.strip("<>"))
    posix = path.replace("\\", "/")
    if PurePosixPath(posix).is_absolute():
        return "file://" + quote(posix)
    return quote(posix)
