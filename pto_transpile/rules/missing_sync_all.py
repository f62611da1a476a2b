from itertools import pairwise

import libcst as cst

from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.read.walk import breaks_out, statements_of
from pto_transpile.rules._walk import calls_in, statements
from pto_transpile.rules.rule import Rule


def check(ctx):
    loops = ctx.kernel.loops
    if len(loops) < 2:
        return
    order = list(statements(ctx.kernel.node.body.body))
    pos = {s: i for i, s in enumerate(order)}
    for prev, loop in pairwise(loops):
        if prev.outer is loop.outer or _exclusive(ctx.file, prev, loop):
            continue
        start, end = pos[prev.outer], pos[loop.outer]
        if start > end:
            continue
        # the outer loop's `else:` (with no `break` of its own) is emitted after the drain, as what follows it
        last = prev.outer.orelse if isinstance(prev.outer, cst.For) and not breaks_out(prev.outer) else None
        after = set(statements(statements_of(last.body))) if last is not None else set()
        inside_prev = {s for s in statements([prev.outer]) if s not in after}
        between = [s for s in order[start + 1:end] if s not in inside_prev]
        if not any(ctx.file.pl.path(c.func) == ("system", "sync_all") for s in between for c in calls_in(s)):
            yield loop.outer, {"line": ctx.source.line_of(prev.node)}


def _exclusive(file, a, b) -> bool:
    """Whether the two loops sit in different branches of one `if` (one of them never runs)."""
    for node in a.ancestors:
        if isinstance(node, cst.If) and any(x is node for x in b.ancestors):
            branch_a, branch_b = _branch(file, node, a.outer), _branch(file, node, b.outer)
            if branch_a is not None and branch_b is not None and branch_a != branch_b:
                return True
    return False


def _branch(file, node: cst.If, loop: cst.For) -> int | None:
    """Which block of the `if`/`elif`/`else` chain holds `loop`."""
    blocks: list[cst.CSTNode] = []
    current: cst.CSTNode | None = node
    while isinstance(current, cst.If):
        blocks.append(current.body)
        current = current.orelse
    if current is not None:
        blocks.append(current)
    return next((i for i, block in enumerate(blocks) if any(x is loop for x in file.find(block, cst.For))), None)


DOC = """\
## What it checks
(Warning.) A kernel has several pipeline loops, and there is no
`pl.system.sync_all(...)` call between the end of one loop (its outermost loop) and the
start of the next. Loops in different branches of one `if` (one loop per tiling-key
instance, say) never both run, and need none. A kernel the soundness check proves gets no
such warning: what the barrier prevents is a race or an event taken by the other loop,
which the proof shows it free of (a barrier costs cycles; the last example runs its two
loops over other data, and is proven without one).

## Why it matters for pipelining
A pipelined loop ends with drain beats (the delayed stages finish the last iterations)
and sync drains (absorbing left-over `set`s). The cores leave the drain at different
times: without a barrier the fast core starts the next pipeline, overwriting buffers or
consuming event flags the slow core still needs.

## Example
```python
    for ki in pl.range(0, N):
        ...
    for kj in pl.range(0, N):
        ...
```

## Use instead
```python
    ...
    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)
    for kj in pl.range(0, N):
```
"""


RULE = Rule(
    code=codes.MISSING_SYNC_ALL,
    name="missing-sync-all",
    title="No whole-core barrier between two pipeline loops",
    message="no `pl.system.sync_all()` between the pipeline loop at line {line} and this one; "
            "its drain may still be running",
    hint="Insert `pl.system.sync_all(core_type=pl.SyncCoreType.MIX)` between the two loops",
    severity=Severity.WARNING,
    check=check,
    seed="the user inserts an all-core sync (`sync_all`) between two pipeline loops",
    doc=DOC,
)
