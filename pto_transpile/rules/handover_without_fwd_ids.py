from pto_api.ops import CROSS_CORE_WRITES
from pto_transpile import codes
from pto_transpile.rules._accesses import all_accesses
from pto_transpile.rules.rule import Rule


def check(ctx):
    stages = ctx.loop.stages
    writers: dict[str, list] = {}
    readers: dict[str, list] = {}
    for i, accesses in enumerate(all_accesses(ctx)):
        for a in accesses:
            if "W" in a.role and (a.pipe, ctx.kernel.buffers[a.buffer].memory) in CROSS_CORE_WRITES:
                writers.setdefault(a.buffer, []).append((stages[i], a))
            if "R" in a.role:
                readers.setdefault(a.buffer, []).append((stages[i], a))
    seen = set()
    for name, ws in writers.items():
        buf = ctx.kernel.buffers[name]
        if buf.fwd is not None or id(buf) in seen:
            continue
        for producer, w in ws:
            other_core = next(((s, a) for s, a in readers.get(name, ()) if s.section != producer.section), None)
            if other_core is None:
                continue
            consumer, r = other_core
            seen.add(id(buf))
            has = "declares only `bwd_ids`" if buf.bwd is not None else "declares no `fwd_ids`/`bwd_ids`"
            yield buf.call, {
                "buffer": buf.name, "producer": producer.func, "pcore": producer.section,
                "consumer": consumer.func, "ccore": consumer.section, "has": has,
                "_related": [(f"`{producer.func}` writes it here", w.node),
                             (f"`{consumer.func}` reads it here", r.node)],
            }
            break


DOC = """\
## What it checks
A tile group is written by a stage on one core into the other core's memory (the cube's
fixpipe move into UB, the vector core's `pl.insert` into L1) and read by a stage on that
other core, but declares no `fwd_ids` (only `bwd_ids`, or no ids at all).

## Why it matters for pipelining
Only `fwd_ids` make the consumer wait until the producer has written the tile: without
them no `wait` is inserted before the consumer, and it reads whatever the tile held, at
every preload, 0 included. `bwd_ids` alone only protect the producer's next overwrite.

## Example
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], bwd_ids=[2, 3])
```

## Use instead
```python
x_db = pl.make_tile_group(type=..., addrs=0x0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
```
"""

RULE = Rule(
    code=codes.HANDOVER_WITHOUT_FWD_IDS,
    name="handover-without-fwd-ids",
    title="A tile group hands data between cores without `fwd_ids`",
    message="`{buffer}` is written by `{producer}` ({pcore}) and read by `{consumer}` ({ccore}) but {has}, so nothing "
            "makes `{consumer}` wait for the data",
    hint="Give `{buffer}` `fwd_ids` (one event id per tile, or one id) and `bwd_ids` for the release",
    phase="loop",
    check=check,
    seed="only fwd_ids make a consumer wait for its producer; without them no sync is inserted",
    doc=DOC,
)
