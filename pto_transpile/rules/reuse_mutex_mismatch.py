from pto_transpile import codes
from pto_transpile.rules.rule import Rule
from pto_transpile.sync.scan import overlap_pairs


def check(ctx):
    k = ctx.kernel
    for a, b in overlap_pairs(k):
        ma, mb = k.buffers[a].mutex_ids, k.buffers[b].mutex_ids
        if ma is not None and mb is not None and ma != mb:
            yield k.buffers[b].mutex_node or k.buffers[b].call, {"a": a, "b": b, "ma": list(ma), "mb": list(mb)}


DOC = """\
## What it checks
Two buffers whose address ranges overlap (at least one of them cross-core, same memory)
declare different `mutex_ids`.

## Why it matters for pipelining
`auto_mutex` orders the accesses of one core to a tile through its mutex id, and the
transform relies on it for same-core ordering (it only inserts cross-core syncs). A mutex
locks an address: two buffers on the same bytes with different ids take different locks,
so a write to one can overtake a read of the other while the pipeline keeps several
iterations in flight.

## Example
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
with pl.section_vector():
    y_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[12, 13])  # reuses x_db's UB
```

## Use instead
```python
    y_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1])
```
"""


RULE = Rule(
    code=codes.REUSE_MUTEX_MISMATCH,
    name="reuse-mutex-mismatch",
    title="Buffers that share addresses declare different mutex_ids",
    message="`{a}` and `{b}` share addresses but declare different mutex_ids ({ma} vs {mb}); a mutex locks an address",
    hint="Give `{b}` the same `mutex_ids={ma}` as `{a}`",
    check=check,
    seed="buffers sharing addresses declare the same mutex_ids",
    doc=DOC,
)
