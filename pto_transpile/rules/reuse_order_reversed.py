from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
Address reuse would need a stage to finish its read of one buffer before an earlier
stage of the same iteration writes the other buffer of the shared region: within one
task, the stage order runs them the other way round.

## Why it matters for pipelining
A write-after-read sync between two buffers on the same bytes makes the writer wait for
the reader's `set`. If, in the same task, the writer's stage comes before the reader's,
the writer would wait for something that happens after it, and both cores stall. The
serial order of the loop body always runs the earlier user of a tile first, and both
buffers advance one tile per iteration, so this shape does not arise from a kernel that
passes the other checks; no kernel is known to reach it.

## Example
```python
# no known kernel; an address reuse between buffers of the same iteration, e.g.
    y_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1])  # shares x_db's UB
```

## Use instead
```python
    y_db = pl.make_tile_group(type=..., addrs=0x4000, mutex_ids=[12, 13])  # own addresses
```
"""


RULE = Rule(
    code=codes.REUSE_ORDER_REVERSED,
    name="reuse-order-reversed",
    title="Address reuse needs a later stage to finish before an earlier one",
    message="address reuse requires `{edge.src.stage}` ({edge.src.buffer}) to finish before `{edge.dst.stage}` "
            "({edge.dst.buffer}) writes, but within one task the stage order runs them the other way round",
    hint="Stop sharing addresses between `{edge.src.buffer}` and `{edge.dst.buffer}`",
    phase="analysis",
    seed="address reuse within one iteration must follow the stage order",
    doc=DOC,
    raised_by=("pto_transpile/sync/plan.py",),
)
