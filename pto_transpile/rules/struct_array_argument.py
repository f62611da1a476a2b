import libcst as cst

from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    k = ctx.kernel
    for loop in k.loops:
        for s in loop.stages:
            for arg in s.passed:
                v = arg.value
                base = v.value if type(v) is cst.Subscript else v
                if isinstance(base, cst.Name) and any(d.is_array for d in k.structs.get(base.value, ())):
                    yield v, {"name": base.value, "stage": s.func}


DOC = """\
## What it checks
A stage receives a value created by `pl.struct_array(...)` (the array itself or one of
its elements, `arr[i]`).

## Why it matters for pipelining
Stage arguments are snapshotted every beat into the ctx ring (itself a `pl.struct_array`)
so a stage running `delay` iterations late sees its own iteration's values. Fields of a
`pl.struct()` become ctx fields; a struct array cannot, so the delayed stage would read
the newest values.

## Example
```python
    pos = pl.struct_array(2, row=0)
    for ki in pl.range(0, N):
        pos[0].row = ki * TILE + sub_id * HALF  # ... st(pos[0], out, x_db)
```

## Use instead
```python
    pos = pl.struct(row=0)
    for ki in pl.range(0, N):
        pos.row = ki * TILE + sub_id * HALF  # ... st(pos, out, x_db)
```
"""


RULE = Rule(
    code=codes.STRUCT_ARRAY_ARGUMENT,
    name="struct-array-argument",
    title="A `pl.struct_array()` value is passed to a stage",
    message="`{name}` comes from `pl.struct_array()` and is passed to stage `{stage}`",
    hint="Declare the stage's struct argument with `pl.struct(...)`; struct arrays cannot travel in the pipeline ctx",
    check=check,
    seed="struct stage arguments are declared with `pl.struct()`, not `pl.struct_array()`",
    doc=DOC,
)
