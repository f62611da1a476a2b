from pto_transpile import codes
from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.rule import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        slots = buf.slot_count
        for ids in (buf.fwd, buf.bwd):
            if ids is None or ids.values is None or slots is None:
                continue
            n = len(ids.values)
            if n not in (1, slots):
                yield ids.node, {"buffer": buf.name, "keyword": ids.keyword, "n": n, "slots": slots}


DOC = """\
## What it checks
A cross-core buffer's `fwd_ids` or `bwd_ids` list has neither exactly one entry nor one
entry per tile (the tile count comes from `mutex_ids`).

## Why it matters for pipelining
Iteration `i` uses tile `i % tiles` and event id `ids[i % len(ids)]`. With one id per tile
each tile hands over on its own flag; with a single id all handovers share one flag and
are serialised (correct, slower). Any other length makes tiles and ids drift apart, so a
`wait` for tile 0 could be satisfied by the `set` of tile 2 and read it too early.

## Example
```python
x_db = pl.make_tile_group(
    type=..., addrs=0x0, mutex_ids=[0, 1, 14],  # grown to 3 tiles
    fwd_ids=[0, 1],
    bwd_ids=[2, 3],
)
```

## Use instead
```python
    mutex_ids=[0, 1, 14],
    fwd_ids=[0, 1, 4],
    bwd_ids=[2, 3, 5],
```
"""


RULE = Rule(
    code=codes.EVENT_ID_COUNT,
    name="event-id-count",
    title="An event id list is neither one id nor one per tile",
    message="cross-core buffer `{buffer}` declares {n} {keyword} but rotates through {slots} tile(s)",
    hint="Give {slots} ids (one per tile), or a single id shared by all tiles (handovers then serialise)",
    check=check,
    seed="fwd_ids/bwd_ids have one id per tile of the buffer, or a single id",
    doc=DOC,
)
