from pto_transpile import codes
from pto_transpile.rules.rule import Rule
from pto_transpile.sync.scan import overlap_pairs


def check(ctx):
    k = ctx.kernel
    for a, b in overlap_pairs(k):
        na, nb = k.buffers[a].slot_count, k.buffers[b].slot_count
        if na is not None and nb is not None and na != nb:
            yield k.buffers[b].call, {"a": a, "b": b, "na": na, "nb": nb}


DOC = """\
## What it checks
Two buffers whose address ranges overlap (at least one of them cross-core, same memory)
have different tile counts. (Their `mutex_ids` then differ as well, so PTO029 is
reported with it.)

## Why it matters for pipelining
The sync analysis assumes tile `i` of one buffer overlaps exactly tile `i` of the other
and that both rotate with the iteration (`tile = task % tiles`). With different counts
the overlapping pairs change from iteration to iteration, so the address-reuse syncs the
transform inserts would protect the wrong tiles.

## Example
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
with pl.section_vector():
    y_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1, 14])
```

## Use instead
```python
    y_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1])
```
"""


RULE = Rule(
    code=codes.REUSE_SLOT_COUNT,
    name="reuse-slot-count",
    title="Buffers that share addresses have different tile counts",
    message="address-sharing buffers `{a}` and `{b}` have different tile counts ({na} vs {nb})",
    hint="Give both buffers the same number of tiles",
    check=check,
    seed="buffers sharing addresses have the same number of tiles",
    doc=DOC,
)
