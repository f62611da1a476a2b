from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
(Warning.) A `# pto-transpile: ignore[...]` comment that silences nothing: no warning it
names is reported on its line, it names an error (errors cannot be suppressed), it names
no rule, or the directive is not understood. A bare `# pto-transpile: ignore` silences
every warning on its line, and is reported when there is none. Whether a warning would be
reported is only judged when the file has no error (an error stops parts of the analysis).

Suppression works on warnings only, on the line the warning points at (its first line):

```python
    for kj in pl.range(0, N):  # pto-transpile: ignore[PTO042]
```

Codes and rule names both work (`ignore[missing-sync-all]`), several separated by commas.

## Why it matters for pipelining
A warning points at a hazard the tool cannot rule out; silencing it records that someone
checked. A comment that silences nothing is stale (the code changed, or the warning went
away) or mistyped, and would silence a new, different warning on that line later. An
error is never silenced: a kernel with an error is never written.

## Example
```python
    for ki in pl.range(0, N):  # pto-transpile: ignore[PTO042]
```

## Use instead
```python
    for ki in pl.range(0, N):
```
"""


RULE = Rule(
    code=codes.USELESS_SUPPRESSION,
    name="useless-suppression",
    title="A suppression comment silences nothing",
    message="`{directive}` silences nothing: {detail}",
    hint="Remove the comment where nothing on its line needs silencing; else name in it the warning reported there",
    phase="analysis",
    severity=Severity.WARNING,
    seed="warnings can be silenced line by line; errors cannot",
    doc=DOC,
    raised_by=("pto_transpile/rules/reporter.py",),
)
