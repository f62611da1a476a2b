from pto_transpile.rules.base import Rule


def check(ctx):
    for e in ctx.graph.edges:
        if e.unstable:
            yield e.dst.access.node, {"src": e.src.label(), "dst": e.dst.label()}


RULE = Rule(
    code="PTO036",
    name="unstable-dependency",
    title="A cross-core dependency never reaches a steady state",
    message="the dependency {src} -> {dst} changes distance from task to task, so no fixed sync can serve it",
    hint="Take exactly one slot per buffer per stage call with `g.next()`",
    phase="graph",
    check=check,
    seed="K54: tiles must rotate with the iteration order",
)
