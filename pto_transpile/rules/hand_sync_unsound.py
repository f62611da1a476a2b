from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.read.pipelined import BY_HAND, pipelined_as
from pto_transpile.rules import _examples as ex
from pto_transpile.rules.rule import Rule
from pto_transpile.soundness.check import check_hand_written
from pto_transpile.soundness.proof import HINTS, problem_fields


def check(ctx):
    file = ctx.file
    for kernel in file.kernels:
        how = pipelined_as(kernel, file)
        if how is None or not how.startswith(BY_HAND):
            continue
        for problem in check_hand_written(file, kernel):
            yield problem.node, {"kernel": kernel.name, **problem_fields(problem)}


DOC = """\\
## What it checks
(A warning.) A kernel pipelined by hand (no `pipeline=`; it calls `set_cross_core` and
`wait_cross_core` itself) is left as written, but its own syncs are judged: the kernel is
run on the same abstract model of the NPU the soundness check uses (the AIC and both AIVs,
each pipe, mutexes, every set and wait) and any deadlock, unbalanced event counter,
counter overflow or race between two accesses is reported.

## Why it matters for pipelining
A missing or misplaced wait in a hand-written pipeline computes wrong numbers only
sometimes on the device; nothing else reports it. The emulator (`--simulate`) shows it on
one run; this check reports it without running the kernel.

## Example
```python
        with pl.section_vector():
            if t >= 1:
                # the wait for the cube's data is missing
                consume(before.row, sub_id, out, x_db, r_db)
```

## Use instead
```python
        with pl.section_vector():
            if t >= 1:
                pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=EV_FULL[(t - 1) % 2])
                consume(before.row, sub_id, out, x_db, r_db)
```
"""

# the vector core's wait for the cube's data is missing: `st` reads the tile while `mm`
# writes it, and the cube's sets pile up unconsumed
_BROKEN = ex.HAND_PIPELINED.replace("\ndef kernel(\n", "\ndef kernel(  # E: PTO060, PTO068\n", 1).replace(
    "            pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=ki % 2)\n", "").replace(
    "acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)\n",
    "acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)  # E: PTO068\n", 1)

INVALID = (_BROKEN,)

VALID = (ex.HAND_PIPELINED,)  # notes of other rules (PTO060) are allowed in valid examples

RULE = Rule(
    code=codes.HAND_SYNC_UNSOUND,
    name="hand-sync-unsound",
    title="The syncs of a hand-pipelined kernel are wrong",
    message="the hand-written syncs of `{kernel}` are not sound: {detail}",
    hint="Order the two accesses the message names with a `set_cross_core`/`wait_cross_core` pair on their pipes",
    hints=HINTS,
    phase="file",
    severity=Severity.WARNING,
    check=check,
    seed="the syncs of a hand-pipelined kernel are checked like the generated ones",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)
