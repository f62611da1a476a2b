from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    """Slots picked in the outer loop travel as an index modulo the tile count; the
    graph reports the same for synchronised buffers itself."""
    for loop in ctx.kernel.loops:
        for pick in loop.outer_picks:
            if pick.slot_count is None:
                yield ctx.kernel.buffers[pick.group].call, {"buffer": pick.group}

DOC = """\
## What it checks
A buffer the sync graph needs (a cross-core buffer, or one sharing its addresses), or a
group a slot is picked from in the outer loop and handed to a stage, has no statically
known tile count: its `mutex_ids` is not a literal list or a module-level constant list,
and it has no constant `depth=`.

## Why it matters for pipelining
Every sync the transform derives depends on the tile count: iteration `i` uses tile
`i % tiles`, a write waits for the reader of the same tile `tiles` iterations earlier, and
the ring of in-flight tiles must be at least as deep as the delay between producer and
consumer. Without the count none of this can be computed.

## Example
```python
    x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=x_mutex, fwd_ids=[0, 1], bwd_ids=[2, 3])
```

## Use instead
```python
X_MUTEX = [0, 1]  # module level, or write the list in place

    x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=X_MUTEX, fwd_ids=[0, 1], bwd_ids=[2, 3])
```
"""

RULE = Rule(
    code=codes.SLOT_COUNT_UNRESOLVED,
    name="slot-count-unresolved",
    title="A synchronised buffer's tile count is not a compile-time constant",
    message="cannot determine how many tiles buffer `{buffer}` has",
    hint="Give `{buffer}` a literal `mutex_ids=[...]` (one entry per tile) or a constant `depth=`",
    phase="kernel",
    check=check,
    seed="the tile count of a synchronised or outer-picked group is a compile-time constant",
    doc=DOC,
)
