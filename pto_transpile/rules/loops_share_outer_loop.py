from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    loops = ctx.kernel.loops
    for i, loop in enumerate(loops):
        for prev in loops[:i]:
            if prev.outer is loop.outer:
                yield loop.node, {"a": ctx.source.line_of(prev.node), "outer": ctx.source.line_of(loop.outer)}
                break


DOC = """\
## What it checks
Two pipeline loops of a kernel have the same outermost enclosing loop, e.g. two
`for ... in pl.range()` pipelines written one after the other inside an outer block loop
(or one pipeline loop nested in another).

## Why it matters for pipelining
A pipeline's ctx ring and task counter keep running across outer iterations, and its
prefire and drain beats sit around its outermost loop. Two pipelines in one outer loop
would interleave drains and ring state on every outer iteration.

## Example
```python
    for h in pl.range(0, H):
        for ki in pl.range(0, N):  # first pipeline
            ...
        for kj in pl.range(0, N):  # second pipeline
            ...
```

## Use instead
```python
    for ki in pl.range(0, N):  # first pipeline, at top level
        ...
    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)
```
"""


RULE = Rule(
    code=codes.LOOPS_SHARE_OUTER_LOOP,
    name="loops-share-outer-loop",
    title="Two pipeline loops sit in the same outer loop",
    message="this pipeline loop and the one at line {a} are both inside the loop at line {outer}; each "
            "pipeline needs its own outermost loop",
    hint="Put the two pipelines in separate top-level loops, with `pl.system.sync_all()` between them",
    check=check,
    seed="two pipeline loops cannot sit in the same outer loop",
    doc=DOC,
)
