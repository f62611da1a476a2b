from pto_transpile import codes
from pto_transpile.rules.rule import Rule
from pto_transpile.sync.scan import overlap_pairs


def check(ctx):
    k = ctx.kernel
    partners: dict[str, list[str]] = {}
    for a, b in overlap_pairs(k):
        partners.setdefault(a, []).append(b)
        partners.setdefault(b, []).append(a)
    for name, others in sorted(partners.items()):
        if len(others) > 1:
            yield k.buffers[name].call, {"buffer": name, "others": ", ".join(sorted(others))}


DOC = """\
## What it checks
A cross-core buffer's address range overlaps more than one other buffer (of the same
memory). Only pairwise reuse is supported.

## Why it matters for pipelining
For address reuse the transform adds reverse (write-after-read) syncs between the two
buffers sharing a region, assuming tile `i` of one overlaps tile `i` of the other. With
three buffers on one region the pairing and the order of the three users are no longer
determined by one pair of syncs, so a write could land on bytes still being read.

## Example
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
with pl.section_vector():
    y_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1])
    z_db = pl.make_tile_group(type=..., addrs=0x800, mutex_ids=[0, 1])  # also inside x_db
```

## Use instead
```python
    y_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1])
    z_db = pl.make_tile_group(type=..., addrs=0x4000, mutex_ids=[12, 13])
```
"""


RULE = Rule(
    code=codes.REUSE_TOO_MANY,
    name="reuse-too-many",
    title="More than two buffers share one address range",
    message="buffer `{buffer}` shares addresses with several buffers ({others}); at most "
            "two buffers may share a region",
    hint="Move all but one of {others} to addresses that do not overlap `{buffer}`",
    check=check,
    seed="at most two buffers share addresses",
    doc=DOC,
)
