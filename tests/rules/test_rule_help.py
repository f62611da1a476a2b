"""Rule texts shown without a finding (SARIF rule help, `--explain`, docs/rules.md) carry no raw
`{placeholders}`: a field reads `<field>`, and a rule whose fix depends on the problem found
(PTO061, PTO068) has a general hint of its own and picks the specific one per finding."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from pto_transpile.cli import main
from pto_transpile.diagnostics import Diagnostic, Severity
from pto_transpile.output.render.sarif import render_sarif
from pto_transpile.rules import registry
from pto_transpile.rules.rule import unfilled

RAW = re.compile(r"\{[A-Za-z_][\w.]*\}")


def test_unfilled_names_each_field():
    assert unfilled("Give `{b}` the same `mutex_ids={ma}` as `{edge.src.buffer}`") == \
        "Give `<b>` the same `mutex_ids=<ma>` as `<edge src buffer>`"


def test_no_rule_text_shown_without_a_finding_has_a_raw_placeholder():
    rules = registry()
    diags = [Diagnostic(code, r.name, Severity.ERROR, "k.py", 1, 1, 1, 2, "m", "h") for code, r in rules.items()]
    doc = json.loads(render_sarif(diags))
    helps = [r["help"]["text"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
    assert len(helps) == len(rules) and all(helps)
    assert not [h for h in helps if RAW.search(h)]
    for code in ("PTO029", "PTO061", "PTO068"):
        out = CliRunner().invoke(main, ["--explain", code]).output
        assert not RAW.search(out.split("## ")[0]), out


def test_the_soundness_rules_pick_the_hint_of_the_problem_found():
    rule = registry()["PTO061"]
    assert set(rule.hints) >= {"race", "value", "argument", "deadlock", "unmodelled"}
    _, hint = rule.format({"detail": "x", "_hint": "deadlock"})
    assert hint == rule.hints["deadlock"] and hint != rule.hint
