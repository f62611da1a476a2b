from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    for e in ctx.graph.edges:
        if e.unstable:
            fields = {"src": e.src.label(), "dst": e.dst.label()}
            if e.src.buffer != e.dst.buffer:  # two groups at one address (probe h139: the help asked for `.next()`)
                fields.update(_hint="reuse", first=e.src.buffer, second=e.dst.buffer)
            yield e.dst.access.node, fields


DOC = """\
## What it checks
In the sync graph, a dependency between two accesses (a read after a write, or a write
after a read, of one tile region) has a different distance in beats from one task to the
next, so no fixed set/wait placement can serve it.

## Why it matters for pipelining
Each sync is a fixed `set` after one stage and `wait` before another, `k` tasks apart;
that needs every task's dependency to have the same shape. Normally caught earlier by
PTO037 (buffer-not-rotating): the graph models one tile per stage per task, so a kernel
that passes PTO037 gives stable distances for each tile group on its own. Two groups laid
on one address range (address reuse) can still reach it: a stage writing the second group
many tasks after another stage's access of the first meets that access at a distance that
changes with the task; give one of them its own bytes.

## Example
```python
    x_db = pl.make_tile_group(type=VT, addrs=0x0, mutex_ids=[20, 21, 22], fwd_ids=[0, 1, 2], bwd_ids=[0, 1, 2])
    ...
        w_db = pl.make_tile_group(type=VT, addrs=0x0, mutex_ids=[20, 21, 22])  # the last stage's scratch
```

## Use instead
```python
        w_db = pl.make_tile_group(type=VT, addrs=0xC000, mutex_ids=[29, 30, 31])  # bytes of its own
```
"""


RULE = Rule(
    code=codes.UNSTABLE_DEPENDENCY,
    name="unstable-dependency",
    title="A cross-core dependency never reaches a steady state",
    message="the dependency {src} -> {dst} changes distance from task to task, so no fixed sync can serve it",
    hint="Take exactly one slot per buffer per stage call with `g.next()`",
    hints={"reuse": "Stop sharing addresses between `{first}` and `{second}`: give one of them its own `addrs` (and "
                    "mutex ids), so that the stages far apart in the pipeline do not meet on the same tiles"},
    phase="graph",
    check=check,
    seed="the tiles of a cross-core buffer rotate with the iteration order, so every dependency reaches a steady state",
    doc=DOC,
)
