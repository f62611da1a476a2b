from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    for e in ctx.graph.edges:
        if e.unstable:
            yield e.dst.access.node, {"src": e.src.label(), "dst": e.dst.label()}


DOC = """\
## What it checks
In the sync graph, a dependency between two accesses (a read after a write, or a write
after a read, of one tile region) has a different distance in beats from one task to the
next, so no fixed set/wait placement can serve it.

## Why it matters for pipelining
Each sync is a fixed `set` after one stage and `wait` before another, `k` tasks apart;
that needs every task's dependency to have the same shape. Normally caught earlier by
PTO037 (buffer-not-rotating): the graph models one tile per stage per task, so a kernel
that passes PTO037 gives stable distances; no kernel is known to reach this check.

## Example
```python
    x = x_db.next()
    x = x_db.next()  # two tiles per iteration (reported as PTO037)
```

## Use instead
```python
    x = x_db.next()  # once per stage call
```
"""


RULE = Rule(
    code=codes.UNSTABLE_DEPENDENCY,
    name="unstable-dependency",
    title="A cross-core dependency never reaches a steady state",
    message="the dependency {src} -> {dst} changes distance from task to task, so no fixed sync can serve it",
    hint="Take exactly one slot per buffer per stage call with `g.next()`",
    phase="graph",
    check=check,
    seed="the tiles of a cross-core buffer rotate with the iteration order, so every dependency reaches a steady state",
    doc=DOC,
)
