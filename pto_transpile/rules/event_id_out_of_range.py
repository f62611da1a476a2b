from pto_api import EVENT_IDS
from pto_transpile import codes
from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.rule import Rule


def check(ctx):
    for buf in cross_core_buffers(ctx.kernel):
        for ids in (buf.fwd, buf.bwd):
            if ids is None or ids.values is None:
                continue
            bad = [v for v in ids.values if v not in EVENT_IDS]
            if bad:
                yield ids.node, {"buffer": buf.name, "keyword": ids.keyword, "bad": bad}


DOC = """\
## What it checks
A literal or resolved `fwd_ids` / `bwd_ids` entry of a cross-core buffer is outside
0..15.

## Why it matters for pipelining
The transform turns each id into a cross-core `set`/`wait` on a hardware event flag, and
the hardware has 16 of them (0..15) per direction. Ids that are not taken by the user are
also the pool the transform allocates address-reuse syncs from, so an id outside the
range is never valid.

## Example
```python
x_db = pl.make_tile_group(
    type=..., addrs=0x0, mutex_ids=[0, 1],
    fwd_ids=[16, 17],
    bwd_ids=[2, 3],
)
```

## Use instead
```python
    fwd_ids=[0, 1],
    bwd_ids=[2, 3],
```
"""


RULE = Rule(
    code=codes.EVENT_ID_OUT_OF_RANGE,
    name="event-id-out-of-range",
    title="A cross-core event id is outside 0..15",
    message="cross-core buffer `{buffer}`: {keyword} contains out-of-range event id(s) {bad}; ids must be in 0..15",
    hint="Pick ids from 0 to 15 that no other cross-core buffer of the loop uses",
    check=check,
    seed="fwd_ids/bwd_ids are event ids 0-15",
    doc=DOC,
)
