import libcst as cst

from pto_transpile import codes
from pto_transpile.rules._picks import picks_outside_loops
from pto_transpile.rules.rule import Rule


def check(ctx):
    for pick in picks_outside_loops(ctx):
        if pick.standalone:
            continue
        fields = {"group": pick.group, "pick": ctx.source.code(pick.expr), "statement": ctx.source.code(pick.small)}
        if isinstance(pick.small, cst.Expr) and pick.small.value is pick.expr:
            # the whole statement (`g.next()` to skip a slot): it holds no variable either
            fields |= {"_message": "bare", "_hint": "bare"}
        yield pick.expr, fields


DOC = """\
## What it checks
Outside the pipeline loop, a slot is taken from a tile group (`g.next()`, `g.current()`,
`g.previous()`, `g[i]`) inside a larger expression instead of being assigned on its own:
`slot = g.current()`.

## Why it matters for pipelining
Slots picked outside the loop and handed to stages are tracked per variable: the
transform records which slot index each variable holds (`_pl_idx_<group>`) and carries it
to the delayed stages through the ctx ring. A pick buried in an expression advances the
group's cursor without any variable holding it, so the tracked index no longer matches the
slot the stage really gets.

## Example
```python
with pl.section_cube():
    pl.load(b_l1.current(), b, [0, 0])
    b_slot = b_l1.current()
```

## Use instead
```python
with pl.section_cube():
    b_slot = b_l1.current()
    pl.load(b_slot, b, [0, 0])
```
"""


RULE = Rule(
    code=codes.BURIED_SLOT_PICK,
    name="buried-slot-pick",
    title="A slot pick outside the pipeline loop is part of a larger expression",
    message="`{pick}` takes a slot of `{group}` inside a larger expression (`{statement}`)",
    hint="Assign the slot on its own line first: `slot = {pick}`, then use `slot`",
    messages={"bare": "`{pick}` takes a slot of `{group}` without assigning it to a name"},
    hints={"bare": "Assign the slot to a name, even one nothing reads: `skipped = {pick}`"},
    check=check,
    seed="outside the pipeline loop a tile is picked by a statement of its own, `slot = group.next()`, "
         "never inside a larger expression",
    doc=DOC,
)
