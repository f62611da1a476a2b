from pto_transpile.rules.base import Rule
from pto_transpile.syncgraph import find_cycles


def check(ctx):
    for total, cycle in find_cycles(ctx.graph):
        if total > 0:
            break
        route = " -> ".join(e.src.label() for e in cycle) + f" -> {cycle[0].src.label()}"
        related = [(f"{e.kind} {e.src.label()} -> {e.dst.label()} (distance {e.dist})", e.dst.access.node) for e in cycle]
        yield cycle[0].dst.access.node, {"route": route, "total": total, "_related": related}


RULE = Rule(
    code="PTO044",
    name="dependency-cycle",
    title="The stage/buffer dependencies form a cycle no sync can satisfy",
    message="the dependencies form a cycle whose distances sum to {total} (<= 0), so it would deadlock: {route}",
    hint="Lower the preload, or give the buffers on the cycle more tiles",
    phase="graph",
    check=check,
    seed="K55: deadlock cycles are rejected",
)
