from pto_transpile import codes
from pto_transpile.rules.rule import Rule

#: The core a buffer's data flows to: UB tiles are written by the cube (fixpipe) and read by
#: the vector cores, L1 tiles the other way round (`insert`). `bwd_ids` flow back.
_CONSUMER = {"Vec": "vector", "Mat": "cube"}
_OTHER = {"vector": "cube", "cube": "vector"}


def check(ctx):
    touched = {a.buffer for stage in ctx.accesses for a in stage}
    owners: dict[tuple[str, int], tuple] = {}
    for name, buf in ctx.kernel.buffers.items():  # declaration order: the later list is reported
        consumer = _CONSUMER.get(buf.memory)
        if name not in touched or not buf.cross_core or consumer is None or buf.name != name:
            continue
        for ids in (buf.fwd, buf.bwd):
            if ids is None or not ids.values:
                continue
            receiver = consumer if ids.kind == "fwd" else _OTHER[consumer]
            for eid in sorted(set(ids.values)):
                first = owners.setdefault((receiver, eid), (buf, ids))
                if first[0] is buf:
                    continue
                other, other_ids = first
                yield ids.node, {
                    "id": eid, "sender": _OTHER[receiver], "receiver": receiver,
                    "a": f"{other.name}.{other_ids.keyword}", "b": f"{buf.name}.{ids.keyword}",
                    "_related": [(f"`{other.name}` uses event id {eid} here", other_ids.node)],
                }
                break


DOC = """\
## What it checks
Two cross-core buffers of one pipeline loop use the same event id in the same direction
(cube to vector, or vector to cube): for example `x_db.bwd_ids=[0, 1]` while
`p_db.fwd_ids=[0, 1]`, both signalled by the vector core to the cube.

## Why it matters for pipelining
An event id is one hardware counter per receiving core: a `wait` passes on any `set` of
that id, whichever buffer it was meant for. With two buffers on one id, the consumer of
one may start on the other's signal, before its own data is ready (a race at every
preload). The same id may serve both directions (the counters differ).

## Example
```python
x_db = pl.make_tile_group(..., fwd_ids=[0, 1], bwd_ids=[2, 3])   # UB: bwd is vector -> cube
p_db = pl.make_tile_group(..., fwd_ids=[2, 3], bwd_ids=[6, 7])   # L1: fwd is vector -> cube
```

## Use instead
```python
x_db = pl.make_tile_group(..., fwd_ids=[0, 1], bwd_ids=[2, 3])
p_db = pl.make_tile_group(..., fwd_ids=[4, 5], bwd_ids=[6, 7])
```
"""

RULE = Rule(
    code=codes.EVENT_ID_SHARED,
    name="event-id-shared",
    title="Two cross-core buffers use one event id in the same direction",
    message="event id {id} ({sender} to {receiver}) is used by both `{a}` and `{b}`: a wait for one "
            "buffer can pass on the other's set",
    hint="Give every cross-core buffer event ids of its own (0-15) in each direction",
    phase="loop",
    check=check,
    seed="an event id is one hardware counter: two buffers must not share an id in the same direction",
    doc=DOC,
)
