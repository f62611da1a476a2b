import libcst as cst

from pto_transpile import codes
from pto_transpile.read.reader import section_of
from pto_transpile.read.walk import find
from pto_transpile.rules.rule import Rule


def check(ctx):
    k = ctx.kernel
    for loop in k.loops:
        for s in loop.stages:
            if s.section == "with":
                yield s.call, {"stage": s.func}
    # a stage call buried deeper (a `with` inside the section, ...) is no stage of its loop
    # at all; calls under a runtime `if` are PTO007's
    known = {s.call for loop in k.loops for s in loop.stages}
    guarded = {c for node, _ in k.dynamic_stage_ifs for c in find(node, cst.Call)}
    one_line = {c: section for loop in k.loops for stmt in loop.body if isinstance(stmt, cst.With)
                and isinstance(stmt.body, cst.SimpleStatementSuite)
                and (section := section_of(stmt, ctx.file.pl)) is not None for c in find(stmt.body, cst.Call)}
    for call, _loop in k.loop_stage_calls:
        if call in one_line:
            yield call, {"stage": call.func.value, "section": one_line[call], "_message": "one_line",
                         "_hint": "one_line"}
        elif call not in known and call not in guarded:
            yield call, {"stage": call.func.value}


DOC = """\
## What it checks
A stage call of the pipeline loop is the body of a `with` block that is not
`pl.section_cube()` / `pl.section_vector()` (for example a custom context manager).

## Why it matters for pipelining
Only the two section blocks tell the transform which core runs a stage. The rewritten loop
replaces each section by a guarded, delayed stage block with the cross-core `wait`s before
and `set`s after the call; an unknown `with` cannot be rebuilt around the delayed call and
gives no core.

## Example
```python
for ki in pl.range(0, N):
    with pl.no_sync():
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
    code=codes.STAGE_IN_PLAIN_WITH,
    name="stage-in-plain-with",
    title="A stage call is inside a `with` block that is not a section",
    message="stage call `{stage}` is not directly inside a `pl.section_cube()`/`pl.section_vector()` block",
    hint="Put the stage call directly in a `with pl.section_cube():` or `with pl.section_vector():` block",
    messages={"one_line": "stage call `{stage}` shares its line with `with pl.section_{section}():`; the transform "
                          "rebuilds a section from the statements of its indented block"},
    hints={"one_line": "Put the call on its own line under the `with`, indented: `with pl.section_{section}():` "
                       "then `    {stage}(...)`"},
    check=check,
    seed="stage calls are wrapped in `with pl.section_cube()` / `with pl.section_vector()` blocks",
    doc=DOC,
)
