import libcst as cst

from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        for stmt in loop.between:
            fields = {"statement": ctx.source.code(stmt).strip().splitlines()[0]}
            if any(ctx.file.pl.path(c.func) == ("system", "sync_all") for c in ctx.file.find(stmt, cst.Call)):
                fields["_hint"] = "barrier"  # in a stage it runs, pipelined, only where the task is in range
            yield stmt, fields


DOC = """\
## What it checks
A statement of the pipeline loop body (outside any section) sits between the first and
the last stage call.

## Why it matters for pipelining
Each beat of the pipelined loop runs every stage on its own, older iteration, while
loop-body statements run once per beat for the newest one. A statement between two stages
belongs to no single iteration; before the first stage its values reach the stages
through the ctx ring.

## Example
```python
    with pl.section_cube():
        mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
    row = ki * TILE + sub_id * HALF  # then st(row, out, x_db) in the vector section
```

## Use instead
```python
for ki in pl.range(0, N):
    row = ki * TILE + sub_id * HALF  # before the first stage: travels in the ctx ring
    with pl.section_cube():
        ...
```
"""


RULE = Rule(
    code=codes.STATEMENT_BETWEEN_STAGES,
    name="statement-between-stages",
    title="A statement sits between two stage calls of the pipeline loop",
    message="`{statement}` sits between two stage calls; nothing may come between the first and the last stage",
    hint="Move it into a stage, or before the first stage (runs once per beat) or after the last one",
    hints={"barrier": "A barrier between two stages orders two iterations' work that the pipelined loop runs in "
                      "different beats: hand the data from one stage to the next through a tile group with "
                      "`fwd_ids`/`bwd_ids` instead, or put the barrier before or after the pipeline loop"},
    check=check,
    seed="no other statement sits between the first and the last stage of the pipeline loop",
    doc=DOC,
)
