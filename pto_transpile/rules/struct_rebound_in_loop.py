import libcst as cst

from pto_transpile import codes
from pto_transpile.read.walk import names_stored
from pto_transpile.rules.rule import Rule


def check(ctx):
    k = ctx.kernel
    for loop in k.loops:
        passed = {a.value.value for s in loop.stages for a in s.passed
                  if isinstance(a.value, cst.Name) and a.value.value in k.structs}
        for stmt in loop.body:
            for name in names_stored(stmt):
                if name.value in passed:
                    yield name, {"name": name.value}


DOC = """\
## What it checks
A `pl.struct(...)` passed to a stage is assigned again inside the pipeline loop
(`pos = pl.struct(row=...)` in the loop body), instead of being declared once before the
loop and updated field by field.

## Why it matters for pipelining
A struct argument reaches its delayed stage as ctx fields, one per field, filled every
beat. The fields come from the one declaration before the loop; a struct re-created in
the loop is a new object the ctx snapshot does not follow.

## Example
```python
    for ki in pl.range(0, N):
        pos = pl.struct(row=ki * TILE + sub_id * HALF)  # ... st(pos, out, x_db)
```

## Use instead
```python
    pos = pl.struct(row=0)
    for ki in pl.range(0, N):
        pos.row = ki * TILE + sub_id * HALF  # ... st(pos, out, x_db)
```
"""


RULE = Rule(
    code=codes.STRUCT_REBOUND_IN_LOOP,
    name="struct-rebound-in-loop",
    title="A struct passed to a stage is re-bound inside the pipeline loop",
    message="struct `{name}` is assigned inside the pipeline loop; stages see its fields through the ctx snapshot",
    hint="Declare `{name} = pl.struct(...)` before the loop and update its fields inside (`{name}.field = ...`)",
    check=check,
    seed="a `pl.struct` stage argument is declared outside the loop and only its fields are updated inside",
    doc=DOC,
)
