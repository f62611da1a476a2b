from pto_transpile import codes
from pto_transpile.rules._buffers import cross_core_buffers
from pto_transpile.rules.rule import Rule


def check(ctx):
    k = ctx.kernel
    if not k.loops:
        return
    used = {a.buffer for loop in ctx.loop_results for stage in loop.accesses for a in stage}
    for buf in cross_core_buffers(k):
        if buf.name not in used:
            yield buf.call, {"buffer": buf.name}


DOC = """\
## What it checks
A buffer declared with `fwd_ids`/`bwd_ids` (so marked cross-core) is not touched by any
stage of any pipeline loop of the kernel.

## Why it matters for pipelining
The ids declare a producer/consumer channel between the cube and the vector core; the
transform places a `set` after the producer stage and a `wait` before the consumer stage.
A channel nobody uses is usually a buffer that was renamed or left behind, and its ids are
withheld from the pool the transform allocates address-reuse syncs from.

## Example
```python
z_db = pl.make_tile_group(type=..., addrs=0x4000, mutex_ids=[12, 13], fwd_ids=[4, 5], bwd_ids=[6, 7])
# ... no stage receives z_db
```

## Use instead
```python
# drop the unused declaration (or its fwd_ids/bwd_ids), or pass z_db to its two stages
```
"""


RULE = Rule(
    code=codes.CROSS_CORE_BUFFER_UNUSED,
    name="cross-core-buffer-unused",
    title="A cross-core buffer is touched by no stage",
    message="cross-core buffer `{buffer}` declares fwd_ids/bwd_ids but no stage of any pipeline loop touches it",
    hint="Pass `{buffer}` to the producer and the consumer stage, or drop its fwd_ids/bwd_ids",
    check=check,
    seed="a cross-core buffer is used by exactly two stages",
    doc=DOC,
)
