from pto_transpile.rules.base import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        if loop.end is None:
            yield loop.node.iter, {"iter": ctx.source.code(loop.node.iter)}
        elif ctx.file.pl.path(loop.node.iter.func) not in (("range",),) and ctx.source.code(loop.node.iter.func) != "range":
            yield loop.node.iter, {"iter": ctx.source.code(loop.node.iter)}


RULE = Rule(
    code="PTO016",
    name="loop-not-range",
    title="The pipeline loop does not iterate over `pl.range(...)`",
    message="the pipeline loop iterates over `{iter}`; it must be `pl.range(start, end[, step])` so the end bound is known",
    hint="Write the loop as `for i in pl.range(start, end, step):`",
    check=check,
    seed="K11 (L6)",
)
