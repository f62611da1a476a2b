from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    for kernel in ctx.file.kernels:
        for loop in kernel.loops:
            for s in loop.stages:
                for arg in s.call.args:
                    if arg.star:
                        yield arg, {"stage": s.func, "star": arg.star}


DOC = """\
## What it checks
A stage is called in a pipeline loop with a starred argument (`st(*args, out, x_db)`,
`st(**kw)`).

## Why it matters for pipelining
Each argument of a stage call is read on its own: whether it is a handle that passes
through or a scalar that travels with its task in the ctx ring, and which parameter it
binds, which decides the producer and consumer of every cross-core buffer. A starred
argument hides which parameters it fills, so every later judgement would be of the wrong
binding.

## Example
```python
    for ki in pl.range(0, N):
        where = (ki, sub_id)
        ...
            st(*where, out, x_db)
```

## Use instead
```python
            st(ki, sub_id, out, x_db)
```
"""


RULE = Rule(
    code=codes.STAGE_CALL_STARRED,
    name="stage-call-starred",
    title="A stage is called with a starred argument",
    message="stage `{stage}` is called with a `{star}` argument, which hides which of its parameters it fills",
    hint="Pass each argument by itself",
    phase="file",
    check=check,
    seed="each stage argument is snapshotted into the ctx ring on its own",
    doc=DOC,
)
