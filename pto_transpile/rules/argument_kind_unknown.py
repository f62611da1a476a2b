from pto_transpile.rules import _examples as ex
from pto_transpile.rules.base import Rule

DOC = """\
## What it checks
A stage argument's kind cannot be decided statically: it is bound from a call the tool
does not know (a plain helper function, a non-`pl` call), so it is not clear whether it is
a per-iteration scalar or a handle (tensor, tile group, struct).

## Why it matters for pipelining
Scalars a stage receives are snapshotted into the ctx ring every beat, so the stage,
running `delay` iterations late, sees its own iteration's values; handles pass through.
A wrong guess hands a delayed stage the newest value, or puts a handle in a ctx field.

## Example
```python
    for ki in pl.range(0, N):
        row = offset(ki, sub_id)  # a plain helper; then st(row, out, x_db)
```

## Use instead
```python
    for ki in pl.range(0, N):
        row = ki * TILE + sub_id * HALF
```
"""

_ST = '''\
@pl.pipeline.stage
def st(row, out, x_db):
    x = x_db.next()
    pl.store(out, x, [row, 0])'''

_HELPER = '''\
def offset(ki, sub_id):
    return ki * TILE + sub_id * HALF'''

INVALID = (
    ex.kernel(helpers=_HELPER, st=_ST,
              loop=ex.loop("row = offset(ki, sub_id)", ex.cube(), ex.vector("st(row, out, x_db)  # E: PTO054"))),
)

VALID = (
    ex.kernel(st=_ST, loop=ex.loop("row = ki * TILE + sub_id * HALF", ex.cube(), ex.vector("st(row, out, x_db)"))),
)


RULE = Rule(
    code="PTO054",
    name="argument-kind-unknown",
    title="Whether a stage argument must travel with its task cannot be decided",
    message="cannot tell whether `{names}` (passed to stage `{stage}`) is a scalar or a handle, so whether it must travel in the ctx ring",
    hint="Bind `{names}` from a `pl` call, a literal or an annotated parameter so its kind is known",
    phase="analysis",
    seed="spec Decisions 2: say so rather than guess",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)
