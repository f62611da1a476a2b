from pto_transpile import codes
from pto_transpile.read.model import StageCall
from pto_transpile.rules.rule import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        seen: dict[object, StageCall] = {}
        for s in loop.stages:
            # one function under two names (`project2 = project`, probe h112) is one stage too
            stage = ctx.file.stages.get(s.func)
            key = stage.node if stage is not None else s.func
            if key in seen:
                named = stage.node.name.value if stage is not None else s.func  # (the `def`'s name)
                yield s.call, {"stage": named, "line": ctx.source.line_of(seen[key].call)}
            else:
                seen[key] = s


DOC = """\
## What it checks
The same stage function is called more than once in one pipeline loop (for example to run
the same computation on a second tensor).

## Why it matters for pipelining
A stage is identified by its function: its delay, its ctx fields (`<stage>_<param>`) and
its sync sites are all keyed by it. Two calls of one function would need two delays and
two sets of ctx fields under one name, so the transform requires one function per stage.

## Example
```python
    with pl.section_vector():
        st(ki, sub_id, out, x_db)
    with pl.section_cube():
        mm(ki, b, a_l1, left_db, right_db, acc_db, y_db)  # mm again
```

## Use instead
```python
    with pl.section_cube():
        mm_b(ki, b, a_l1, left_db, right_db, acc_db, y_db)  # a second stage function
```
"""


RULE = Rule(
    code=codes.STAGE_CALLED_TWICE,
    name="stage-called-twice",
    title="The same stage function is called twice in one pipeline loop",
    message="stage `{stage}` is already called at line {line} in this pipeline loop",
    hint="Define a second stage function (a stage may run once per iteration) or merge the work",
    check=check,
    seed="a stage function is called at most once per pipeline loop",
    doc=DOC,
)
