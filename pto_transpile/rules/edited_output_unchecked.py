from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.read.pipelined import edited_output
from pto_transpile.rules.hand_sync_unsound import findings, hand_pipelined
from pto_transpile.rules.rule import Rule


def check(ctx):
    for kernel in hand_pipelined(ctx.file):
        if edited_output(kernel, ctx.file):
            for node, fields in findings(ctx.file, kernel, undecided=True):
                fields.pop("_hint", None)
                yield node, fields


DOC = """\
## What it checks
A kernel that binds pto-transpile's task counter (`_pl_task_id`, `_pl_sync_id`) or carries
the mark pto-transpile writes above its output (`# Written by pto-transpile (digest ...)`),
but no mark holding the digest of its file, is an output edited after it was written (or a
hand-written kernel that took those names). The stale mark is enough: renaming the counters
does not make an edited output a kernel pipelined by hand. It is checked as a
hand-pipelined kernel (PTO068); where the check cannot follow its syncs (its own ctx ring's
validity flags, in a loop of run-time trip count), that is this error, not the PTO077 warning
a kernel pipelined by hand gets: an edit to generated code that keeps the events balanced and
moves a wait is a race the emulator shows and nothing else would.

## Why it matters for pipelining
The generated kernel was proven against its serial kernel when it was written; an edit
voids that proof, and its ring is not something the check can follow for every trip count.
The serial kernel is what to change: transpile it again.

## Example
```python
# build/kernel/pipeline_generated.py, edited by hand after it was written
    for ki in pl.range(0, a.shape[0] // TILE):
```

## Use instead
```python
# kernel.py, the serial kernel: change it and transpile it again
    for ki in pl.range(0, a.shape[0] // TILE):
        with pl.section_cube():
            mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
```
"""

RULE = Rule(
    code=codes.EDITED_OUTPUT_UNCHECKED,
    name="edited-output-unchecked",
    title="An edited output of pto-transpile whose syncs cannot be checked",
    message="`{kernel}` is pto-transpile's output (its task counter or its mark) in a file changed after "
            "pto-transpile wrote it, and its syncs could not be checked: {detail}",
    hint="Change the serial kernel the file came from and transpile it again, instead of editing the output",
    phase="file",
    severity=Severity.ERROR,
    check=check,
    seed="a generated kernel edited after it was written is checked again, and refused where it cannot be",
    doc=DOC,
)
