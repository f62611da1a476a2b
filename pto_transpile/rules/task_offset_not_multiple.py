from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
A synchronised dependency spans a number of tasks that is not a multiple of the number
of event ids serving it (its `fwd_ids`/`bwd_ids` length or its allocated overlap ids).

## Why it matters for pipelining
Task `i` signals on `ids[i % n]`. A `wait` that must match the `set` of task `i - k` looks
at `ids[i % n]` as well, so `k` must be a multiple of `n`; otherwise it waits on another
tile's flag and may pass before its own data is ready. Every tile of a lane belongs to
tasks `tiles` apart and id lists have one entry or one per tile (PTO027), so a kernel
that passes PTO027 always gives multiples: this check is what still stops the mismatch
if PTO027 were ever missed.

## Example
```python
    x_db = pl.make_tile_group(type=..., mutex_ids=[0, 1, 14], fwd_ids=[0, 1], bwd_ids=[2, 3])  # PTO027
```

## Use instead
```python
    x_db = pl.make_tile_group(type=..., mutex_ids=[0, 1, 14], fwd_ids=[0, 1, 4], bwd_ids=[2, 3, 5])
```
"""


RULE = Rule(
    code=codes.TASK_OFFSET_NOT_MULTIPLE,
    name="task-offset-not-multiple",
    title="A sync's task offset is not a multiple of its id count",
    message="sync edge {edge.src.stage} -> {edge.dst.stage} has task offset {skew}, which is not a "
            "multiple of its {count} event id(s)",
    hint="Give the buffer one event id per tile, or a single id",
    phase="analysis",
    seed="a sync spanning k tasks uses ids whose count divides k",
    doc=DOC,
    raised_by=("pto_transpile/sync/plan.py",),
)
