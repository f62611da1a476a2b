import libcst as cst

from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        if not isinstance(loop.node.target, cst.Name):
            yield loop.node.target, {"target": ctx.source.code(loop.node.target)}


DOC = """\
## What it checks
The target of the pipeline loop (`for <target> in pl.range(...)`) is not a single name,
e.g. `for ki, kj in ...`.

## Why it matters for pipelining
The transform rewrites the loop around its variable: it counts tasks, keeps each
iteration's loop variable in the ctx ring for the delayed stages and guards the prologue
and drain beats with it (`is_valid`). Tuple unpacking has no single value to carry.

## Example
```python
for ki, kj in pl.range(0, N):
    ...
```

## Use instead
```python
for ki in pl.range(0, N):
    ...  # derive other indices from ki, inside the stages
```
"""


RULE = Rule(
    code=codes.LOOP_TARGET_NOT_NAME,
    name="loop-target-not-name",
    title="The pipeline loop variable is not a simple name",
    message="the pipeline loop variable `{target}` is not a simple name; tuple unpacking is not supported",
    hint="Iterate with one name, `for ki in pl.range(...)`, and unpack inside the stages",
    check=check,
    seed="the pipeline loop variable is a plain name",
    doc=DOC,
)
