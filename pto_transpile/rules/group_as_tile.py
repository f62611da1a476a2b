"""PTO086: a tile group given to an op where it takes a tile."""

from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
Inside a stage (or a helper it calls), a `pl` op is given a tile group itself
(`pl.relu(y, x_db)`) where it takes a tile: a slot of the group, `x = x_db.next()`.

## Why it matters for pipelining
A tile group is a ring of tiles, not a tile: PyPTO's ops take one tile, and the slot a
task uses is the one `next()` hands it, which the cross-core `wait`/`set` and the ctx ring
follow. Given the group, the op names no slot; the kernel is wrong before it is pipelined.

## Example
```python
@pl.pipeline.stage
def act(ki, x_db, y_db):
    y = y_db.next()
    pl.relu(y, x_db)
```

## Use instead
```python
    x = x_db.next()
    y = y_db.next()
    pl.relu(y, x)
```
"""


RULE = Rule(
    code=codes.GROUP_AS_TILE,
    name="group-as-tile",
    title="A tile group is given to an op that takes a tile",
    message="`pl.{op}` is given the tile group `{group}` where it takes a tile",
    hint="Take a tile of the group first, `slot = {group}.next()` (or `.current()`), and give the op `slot`",
    phase="analysis",
    seed="inside a stage, an op's tiles are slots picked from their groups (`slot = group.next()`)",
    doc=DOC,
    raised_by=("pto_transpile/sync/scan.py",),
)
