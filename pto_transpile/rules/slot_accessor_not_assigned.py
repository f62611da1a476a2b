from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
Inside a stage (or a helper it calls), a tile is taken from a tile group with
`g.next()` / `g.current()` / `g.previous()` inside a larger expression (an op argument,
a conditional expression, a chained call), instead of `slot = g.next()`.

## Why it matters for pipelining
The access scan follows tiles by variable: after `x = x_db.next()` every op on `x` is an
access of `x_db` on that op's pipe, where the cross-core `wait`/`set` go. An inline pick
has no name, so the access is lost: the pipeline is not built until it is fixed.

## Example
```python
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    pl.store(out, x_db.next(), [ki * TILE + sub_id * HALF, 0])
```

## Use instead
```python
    x = x_db.next()
    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])
```
"""


RULE = Rule(
    code=codes.SLOT_ACCESSOR_NOT_ASSIGNED,
    name="slot-accessor-not-assigned",
    title="Inside a stage, a slot is taken inside a larger expression",
    message="`{group}.{accessor}()` must be assigned to a simple variable (`slot = "
            "{group}.{accessor}()`), not used inline",
    hint="Write `slot = {group}.{accessor}()` on its own line and use `slot`",
    phase="analysis",
    seed="inside a stage, a tile is picked by `slot = group.next()` (or `group[i]`) on a statement of its own",
    doc=DOC,
    raised_by=("pto_transpile/sync/scan.py",),
)
