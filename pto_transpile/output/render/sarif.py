"""`--format sarif`: SARIF 2.1.0, the format GitHub code scanning uploads."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from pto_transpile.output.render.hidden import hidden_words
from pto_transpile.rules import registry

__version__ = "0.1.0"

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: the base of relative artifact paths, as code scanning names a checkout's root
SRCROOT = "%SRCROOT%"


def render_sarif(diagnostics, sources=None, hidden=()) -> str:
    """The log of a run; `hidden`: (file, errors --select/--ignore hid that stopped its output),
    each a notification of the run's invocation (its results show only what the filters let
    through, and the exit status is 1)."""
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
            "fullDescription": {"text": r.title if r else code},
            # the rule's page (what it checks, why, a failing and a passing example) is markdown:
            # code scanning renders `help.markdown` and shows `fullDescription` as plain text
            "help": {"text": r.help_text if r else "", "markdown": (r.doc or r.title) if r else code},
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
                    "artifactLocation": _artifact(d.path),
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
                    "artifactLocation": _artifact(r.path or d.path),
                    "region": {"startLine": r.line, "startColumn": r.column},
                },
            } for i, r in enumerate(d.related)]
        results.append(result)
    doc: dict[str, Any] = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "pto-transpile", "version": __version__, "rules": driver_rules}},
            # what relative paths are relative to: the directory the command ran in
            "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().resolve().as_uri() + "/"}},
            "results": results,
        }],
    }
    if hidden:
        doc["runs"][0]["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [{
            "level": "error",
            "message": {"text": hidden_words(n)},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(path)}}],
        } for path, n in hidden]}]
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _artifact(path: str) -> dict:
    """A result's `artifactLocation`: a relative path says what it is relative to (`SRCROOT`)."""
    uri = file_uri(path)
    relative = not (uri.startswith("file:") or path.startswith("<"))
    return {"uri": uri, "uriBaseId": SRCROOT} if relative else {"uri": uri}


def file_uri(path: str) -> str:
    """A file's path as the URI reference SARIF asks for: a relative path percent-encoded
    (`sp%20ace/k.py`), an absolute one as a `file:` URI; the standard input as `stdin`."""
    if path.startswith("<") and path.endswith(">"):
        return quote(path.strip("<>"))
    posix = path.replace("\\", "/")
    if PurePosixPath(posix).is_absolute():
        return "file://" + quote(posix)
    return quote(posix)
