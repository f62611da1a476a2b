from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        for s in loop.stages:
            if s.section == "":
                yield s.call, {"stage": s.func}


DOC = """\
## What it checks
A stage call of the pipeline loop sits directly in the loop body instead of being the only
statement of a `with pl.section_cube():` or `with pl.section_vector():` block.

## Why it matters for pipelining
The section says which core runs the stage. The transform needs it to alternate
cube/vector stages, to compute delays (relative to the upstream stage of the other core)
and to place each cross-core `set`/`wait` on the right core.

## Example
```python
for ki in pl.range(0, N):
    mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
```

## Use instead
```python
for ki in pl.range(0, N):
    with pl.section_cube():
        mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
```
"""


RULE = Rule(
    code=codes.STAGE_OUTSIDE_SECTION,
    name="stage-outside-section",
    title="A stage call sits directly in the pipeline loop body",
    message="stage call `{stage}` is not inside a `with pl.section_cube()` or `with pl.section_vector()` block",
    hint="Wrap the call in the section of the core that runs it: `with pl.section_cube():` "
         "or `with pl.section_vector():`",
    check=check,
    seed="each stage call sits in its own section block",
    doc=DOC,
)
