from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        seen = set()
        for s in loop.stages:
            if s.section not in ("cube", "vector") or s.holder in seen:
                continue
            seen.add(s.holder)
            for other in s.siblings:
                yield other, {"stage": s.func, "statement": ctx.source.code(other).strip().splitlines()[0]}


DOC = """\
## What it checks
A section block that holds a stage call also holds another statement (an op, an
assignment, a barrier...).

## Why it matters for pipelining
In the pipelined loop the stage call runs `delay` iterations late, with its arguments read
from the ctx ring, and its cross-core `wait`/`set` wrap the call. A statement next to it
would either run on the wrong iteration or outside the synchronised region, racing the
other core.

## Example
```python
    with pl.section_cube():
        mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
        pl.system.sync_all()
```

## Use instead
```python
    with pl.section_cube():
        mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
```
(put the extra work inside the stage function).
"""


RULE = Rule(
    code=codes.SECTION_EXTRA_STATEMENT,
    name="section-extra-statement",
    title="A section holding a stage also holds other statements",
    message="the section holding stage `{stage}` also contains `{statement}`; it may hold nothing but the stage call",
    hint="Move the statement into the stage function, or before the first / after the last stage of the loop",
    check=check,
    seed="each section block holds a single stage call and nothing else",
    doc=DOC,
)
