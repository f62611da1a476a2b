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
        raise ValueError(f"unknown rule {code!r}; codes run from {codes_there_are(rules)}")
    lines = [f"{rule.code} {rule.name}: {rule.title}\n", f"severity: {rule.severity.value}"]
    if rule.seed:
        lines.append(f"constraint: {rule.seed}")
    if rule.raised_by:
        lines.append(f"raised by: {', '.join(rule.raised_by)}")
    lines.append(f"message: {unfilled(rule.message)}\nhint: {rule.help_text}\n")
    if rule.doc:
        lines.append(rule.doc.strip() + "\n")
    return "\n".join(lines)


def codes_there_are(rules) -> str:
    """`PTO001 to PTO099`, with the codes in between that name no rule (probe h231: `PTO090` was
    said to be in the range, and was no rule)."""
    numbers = sorted(int(code[3:]) for code in rules)
    gaps = [(a + 1, b - 1) for a, b in zip(numbers, numbers[1:], strict=False) if b - a > 1]
    words = f"{min(rules)} to {max(rules)}"
    if gaps:
        words += " except " + ", ".join(f"PTO{a:03d}" if a == b else f"PTO{a:03d}-PTO{b:03d}" for a, b in gaps)
    return words
