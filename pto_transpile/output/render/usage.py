"""A usage error (exit status 2) as `--format json` and `--format sarif` print it: a document a
CI step can parse where it expects one, saying why the run did nothing."""

from __future__ import annotations

import json

from pto_transpile.output.render.sarif import SCHEMA, __version__


def usage_document(fmt: str, message: str, hint: str = "See `pto-transpile --help`") -> str:
    """The json array (one record, code `usage`) or the SARIF log (no result; the run marked
    unsuccessful, with the message as its notification) of a usage error."""
    if fmt == "json":
        record = {"code": "usage", "name": "usage-error", "severity": "error", "path": "", "line": 0, "column": 0,
                  "end_line": 0, "end_column": 0, "message": message, "hint": hint,
                  "related": []}
        return json.dumps([record], indent=2, ensure_ascii=False) + "\n"
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "pto-transpile", "version": __version__, "rules": []}},
            "invocations": [{"executionSuccessful": False,
                             "toolExecutionNotifications": [{"level": "error", "message": {"text": message}}]}],
            "results": [],
        }],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
