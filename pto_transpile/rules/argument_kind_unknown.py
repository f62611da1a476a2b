from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
A stage argument's kind cannot be decided statically: it is bound from a call the tool
does not know (a function imported from another module, a non-`pl` call), so it is not
clear whether it is a per-iteration scalar or a handle (tensor, tile group, struct). A
function of the file is read: its return annotation (`-> int`), else what its `return`s
give from the kinds of the arguments of the call (`offset(ki, sub_id)` of `return ki *
TILE + sub_id * HALF` is a scalar).

## Why it matters for pipelining
Scalars a stage receives are snapshotted into the ctx ring every beat, so the stage,
running `delay` iterations late, sees its own iteration's values; handles pass through.
A wrong guess hands a delayed stage the newest value, or puts a handle in a ctx field.

## Example
```python
    for ki in pl.range(0, N):
        row = offset(ki, sub_id)  # `from tiling_util import offset`; then st(row, out, x_db)
```

## Use instead
```python
    for ki in pl.range(0, N):
        row = ki * TILE + sub_id * HALF
```
"""


RULE = Rule(
    code=codes.ARGUMENT_KIND_UNKNOWN,
    name="argument-kind-unknown",
    title="Whether a stage argument must travel with its task cannot be decided",
    message="cannot tell whether `{names}` (passed to stage `{stage}`) is a scalar or a handle, so whether "
            "it must travel in the ctx ring",
    hint="Bind `{names}` from a `pl` call, a literal or an annotated parameter so its kind is known",
    phase="analysis",
    seed="where a value's kind (scalar or handle) cannot be decided statically, say so rather than guess",
    doc=DOC,
    raised_by=("pto_transpile/sync/ctxring.py",),
)
