from pto_transpile.rules import _examples as ex
from pto_transpile.rules.base import Rule


def check(ctx):
    k = ctx.kernel
    if k.loops:
        return
    if not ctx.file.stages:
        yield k.node.name, {"detail": "the file has no `@pl.pipeline.stage` functions"}
    else:
        yield k.node.name, {"detail": "no `for` loop calls a stage inside `with pl.section_cube()/section_vector()` blocks"}


DOC = """\
## What it checks
A kernel sets `pipeline=pl.pipeline.PipelineConfig(...)`, but no `for` loop of it calls a
`@pl.pipeline.stage` function inside `with pl.section_cube()` / `with pl.section_vector()`
blocks: either the file has no stage functions at all (the decorator was forgotten), or
the stages are never called from such a loop (for example from a `while` loop).

## Why it matters for pipelining
The transform only knows what to overlap from the stage calls of a `for ... in pl.range()`
loop: it delays the downstream core's stages by whole iterations and keeps each
iteration's arguments in a ring of ctx slots. With no such loop the `pipeline=` setting
would silently do nothing.

## Example
```python
def mm(ki, a, a_l1, left_db, right_db, acc_db, x_db):  # no @pl.pipeline.stage
    ...
```

## Use instead
```python
@pl.pipeline.stage
def mm(ki, a, a_l1, left_db, right_db, acc_db, x_db):
    ...
```
"""


INVALID = (
    ex.kernel(
        mm=ex.MM.replace("@pl.pipeline.stage\n", ""),
        st=ex.ST.replace("@pl.pipeline.stage\n", ""),
    ).replace("def kernel(\n", "def kernel(  # E: PTO004\n"),
    ex.kernel(loop="""\
ki = 0
while ki < N:
    with pl.section_cube():
        mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)  # E: PTO055
    with pl.section_vector():
        st(ki, sub_id, out, x_db)  # E: PTO055
    ki += 1""").replace("def kernel(\n", "def kernel(  # E: PTO004\n"),
)

VALID = (ex.kernel(),)


RULE = Rule(
    code="PTO004",
    name="no-pipeline-loop",
    title="A pipeline kernel has no pipeline loop",
    message="kernel has `pipeline=` but nothing to pipeline: {detail}",
    hint="Call each `@pl.pipeline.stage` function from a `for ... in pl.range(...)` loop, one per `with pl.section_*()` block",
    check=check,
    seed="K5/K6: no stage functions, or stages never called in a loop",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)
