from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        if loop.end is None:
            yield loop.node.iter, {"iter": ctx.source.code(loop.node.iter)}
        elif (ctx.file.pl.path(loop.node.iter.func) not in (("range",),)
              and ctx.source.code(loop.node.iter.func) != "range"):
            yield loop.node.iter, {"iter": ctx.source.code(loop.node.iter)}


DOC = """\
## What it checks
The pipeline loop does not iterate over a call `pl.range(start, end[, step])` (or
`range(...)`): for example over a list, a tensor or a variable.

## Why it matters for pipelining
After the loop the transform appends drain beats that let the delayed stages finish the
last iterations, and it needs the start, end and step to compute which beats hold a
valid task. An arbitrary iterable has no known bounds.

## Example
```python
for ki in [0, 1, 2, 3]:
    ...
```

## Use instead
```python
for ki in pl.range(0, N):
    ...
```
"""


RULE = Rule(
    code=codes.LOOP_NOT_RANGE,
    name="loop-not-range",
    title="The pipeline loop does not iterate over `pl.range(...)`",
    message="the pipeline loop iterates over `{iter}`; it must be `pl.range(start, end[, "
            "step])` so the end bound is known",
    hint="Write the loop as `for i in pl.range(start, end, step):`",
    check=check,
    seed="the pipeline loop iterates over `pl.range(start, end[, step])`",
    doc=DOC,
)
