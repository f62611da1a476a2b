import libcst as cst

from pto_transpile import codes
from pto_transpile.read.model import StageCall
from pto_transpile.rules.rule import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        by_holder: dict[cst.CSTNode, list[StageCall]] = {}
        for s in loop.stages:
            if s.section in ("cube", "vector"):
                by_holder.setdefault(s.holder, []).append(s)
        for group in by_holder.values():
            for extra in group[1:]:
                yield extra.call, {"first": group[0].func, "stage": extra.func}


DOC = """\
## What it checks
One `with pl.section_cube()` / `with pl.section_vector()` block of the pipeline loop holds
more than one stage call.

## Why it matters for pipelining
Each stage gets its own delay and its own ctx slot: in the pipelined loop the two calls
would run on different iterations, with cross-core `wait`/`set` between them. A section is
the unit the transform moves, so it must hold exactly one stage.

## Example
```python
for ki in pl.range(0, N):
    with pl.section_cube():
        mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
        st(ki, sub_id, out, x_db)
```

## Use instead
```python
for ki in pl.range(0, N):
    with pl.section_cube():
        mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
    with pl.section_vector():
        st(ki, sub_id, out, x_db)
```
"""


RULE = Rule(
    code=codes.MULTIPLE_STAGES_IN_SECTION,
    name="multiple-stages-in-section",
    title="One section block holds more than one stage call",
    message="section block holds stage `{first}` and also stage `{stage}`; a section holds exactly one stage",
    hint="Give `{stage}` its own `with pl.section_*():` block (and keep cube/vector alternating)",
    check=check,
    seed="each section block holds a single stage call",
    doc=DOC,
)
