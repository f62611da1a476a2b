from pto_transpile import codes
from pto_transpile.rules.rule import Rule
from pto_transpile.sync.graph import find_cycles


def check(ctx):
    for total, cycle in find_cycles(ctx.graph):
        if total > 0:
            break
        route = " -> ".join(e.src.label() for e in cycle) + f" -> {cycle[0].src.label()}"
        related = [(f"{e.kind} {e.src.label()} -> {e.dst.label()} (distance {e.dist})", e.dst.access.node)
                   for e in cycle]
        yield cycle[0].dst.access.node, {"route": route, "total": total, "_related": related}


DOC = """\
## What it checks
The dependencies between the stages' accesses (read after write, write after read, also
across buffers that share addresses) form a cycle whose distances, in beats, sum to zero
or less: every access on it would wait for another one on it.

## Why it matters for pipelining
Each edge of the sync graph becomes a `wait` before one stage for a `set` after another,
possibly some tasks earlier. Around a cycle with a non-positive total the first `wait`
can only be satisfied by a `set` that itself waits: both cores hang. The delays of the
schedule cancel out around a cycle, so its total is the number of tasks of slack, which
only runs out when a buffer has fewer tiles than the producer keeps in flight. So it is
normally caught earlier as PTO043 (too-few-tiles); this check is what still stops the
deadlock if PTO043 were ever missed.

## Example
```python
@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
...
    x_db = pl.make_tile_group(type=..., mutex_ids=[0], fwd_ids=[0], bwd_ids=[2])  # PTO043
```

## Use instead
```python
    x_db = pl.make_tile_group(type=..., mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
```
"""


RULE = Rule(
    code=codes.DEPENDENCY_CYCLE,
    name="dependency-cycle",
    title="The stage/buffer dependencies form a cycle no sync can satisfy",
    message="the dependencies form a cycle whose distances sum to {total} (<= 0), so it would deadlock: {route}",
    hint="Lower the preload, or give the buffers on the cycle more tiles",
    phase="graph",
    check=check,
    seed="the stage/buffer dependencies must not form a cycle no sync can satisfy (a deadlock)",
    doc=DOC,
)
