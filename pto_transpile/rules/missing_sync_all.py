from pto_transpile.diagnostics import Severity
from pto_transpile.rules._walk import calls_in, statements
from pto_transpile.rules.base import Rule


def check(ctx):
    loops = ctx.kernel.loops
    if len(loops) < 2:
        return
    order = list(statements(ctx.kernel.node.body.body))
    pos = {id(s): i for i, s in enumerate(order)}
    for prev, loop in zip(loops, loops[1:]):
        if prev.outer is loop.outer:
            continue
        start, end = pos[id(prev.outer)], pos[id(loop.outer)]
        if start > end:
            continue
        inside_prev = {id(s) for s in statements([prev.outer])}
        between = [s for s in order[start + 1:end] if id(s) not in inside_prev]
        if not any(ctx.file.pl.path(c.func) == ("system", "sync_all") for s in between for c in calls_in(s)):
            yield loop.outer, {"line": ctx.source.line_of(prev.node)}


RULE = Rule(
    code="PTO042",
    name="missing-sync-all",
    title="No whole-core barrier between two pipeline loops",
    message="no `pl.system.sync_all()` between the pipeline loop at line {line} and this one; its drain may still be running",
    hint="Insert `pl.system.sync_all(core_type=pl.SyncCoreType.MIX)` between the two loops",
    severity=Severity.WARNING,
    check=check,
    seed="循环之间需要用户手动插入全核同步",
)
