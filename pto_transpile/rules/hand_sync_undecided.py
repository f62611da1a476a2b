from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.read.pipelined import edited_output
from pto_transpile.rules.hand_sync_unsound import findings, hand_pipelined
from pto_transpile.rules.rule import Rule


def check(ctx):
    for kernel in hand_pipelined(ctx.file):
        if not edited_output(kernel, ctx.file):  # an edited output: an error (PTO082)
            yield from findings(ctx.file, kernel, undecided=True)


DOC = """\
## What it checks
(A warning.) The syncs of a kernel pipelined by hand are judged like the generated ones
(PTO068), but only where the model can follow the kernel. When it cannot (a sync under a
condition known only at run time, a loop whose trip count it cannot compute, an access that
a runtime condition may or may not make), it says what it could not follow instead of
accepting or refusing the kernel.

## Why it matters for pipelining
A kernel the check could not follow is not known to be right: its syncs were not proven.
`--simulate` runs it on the emulated NPU, which follows every run it is given.

## Example
```python
        with pl.section_vector():
            if a[0, 0] > 0:  # whether the vector core waits depends on the data
                pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=ki % 2)
```

## Use instead
```python
        with pl.section_vector():
            pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=ki % 2)
```
"""

RULE = Rule(
    code=codes.HAND_SYNC_UNDECIDED,
    name="hand-sync-undecided",
    title="The syncs of a hand-pipelined kernel could not be checked",
    message="the hand-written syncs of `{kernel}` could not be checked: {detail}",
    hint="Write what the message names in a form the check follows: loops as `pl.range(...)` (a `while`, or "
         "Python's `range` over a value known only at run time, is not followed), syncs outside conditions known "
         "only at run time, `sync_mode` left at its default; or run the kernel with `--simulate`, which follows "
         "each run it is given",
    phase="file",
    severity=Severity.WARNING,
    check=check,
    seed="a hand-pipelined kernel whose syncs the check cannot follow is reported, not accepted silently",
    doc=DOC,
)
