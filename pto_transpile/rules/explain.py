"""`--explain CODE`: a rule's documentation as the command prints it."""

from __future__ import annotations

from pto_transpile.rules import registry
from pto_transpile.rules.rule import unfilled


def explain(code: str) -> str:
    """The text of rule `code` (a code, its number or a rule name); ValueError names the codes
    there are."""
    rules = registry()
    given = code.strip()
    if given.isdigit():  # `--explain 43`: the number of PTO043
        given = f"PTO{int(given):03d}"
    rule = rules.get(given.upper()) or next((r for r in rules.values() if r.name == given.lower()), None)
    if rule is None:
        raise ValueError(f"unknown rule {code!r}; codes run from {min(rules)} to {max(rules)}")
    lines = [f"{rule.code} {rule.name}: {rule.title}\n", f"severity: {rule.severity.value}"]
    if rule.seed:
        lines.append(f"constraint: {rule.seed}")
    if rule.raised_by:
        lines.append(f"raised by: {', '.join(rule.raised_by)}")
    lines.append(f"message: {unfilled(rule.message)}\nhint: {rule.help_text}\n")
    if rule.doc:
        lines.append(rule.doc.strip() + "\n")
    return "\n".join(lines)
