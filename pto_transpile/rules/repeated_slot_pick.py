import libcst as cst

from pto_transpile import codes
from pto_transpile.rules._picks import picks_outside_loops
from pto_transpile.rules.rule import Rule


def check(ctx):
    first: dict[str, cst.BaseStatement] = {}
    for pick in picks_outside_loops(ctx):
        if pick.target is None:
            continue
        if pick.target in first and first[pick.target] is not pick.stmt:
            yield pick.small, {"target": pick.target, "line": ctx.source.line_of(first[pick.target])}
        first.setdefault(pick.target, pick.stmt)


DOC = """\
## What it checks
Outside the pipeline loop, the same variable is assigned a slot more than once
(`w = b_l1.current()` ... `w = d_l1.current()`).

## Why it matters for pipelining
A slot picked outside the loop and passed to a stage is carried to the delayed stage as a
slot index tracked per variable. When one variable takes two slots, the stages would all
receive the last one, while the serial kernel used each pick for its own load; the
pipelined kernel would silently compute with the wrong tile.

## Example
```python
    w = b_l1.current()
    pl.load(w, b, [0, 0])
    w = d_l1.current()
    pl.load(w, d, [0, 0])
```

## Use instead
```python
    w_b = b_l1.current()
    pl.load(w_b, b, [0, 0])
    w_d = d_l1.current()
    pl.load(w_d, d, [0, 0])
```
"""


RULE = Rule(
    code=codes.REPEATED_SLOT_PICK,
    name="repeated-slot-pick",
    title="One variable takes a slot twice outside the pipeline loop",
    message="`{target}` already took a slot at line {line}; a variable may take a slot only once",
    hint="Use a separate variable for each slot you need",
    check=check,
    seed="a variable takes a tile only once outside the pipeline loop; use one variable per tile",
    doc=DOC,
)
