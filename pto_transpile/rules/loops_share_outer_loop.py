from pto_transpile.rules.base import Rule


def check(ctx):
    loops = ctx.kernel.loops
    for i, loop in enumerate(loops):
        for prev in loops[:i]:
            if prev.outer is loop.outer:
                yield loop.node, {"a": ctx.source.line_of(prev.node), "outer": ctx.source.line_of(loop.outer)}
                break


RULE = Rule(
    code="PTO041",
    name="loops-share-outer-loop",
    title="Two pipeline loops sit in the same outer loop",
    message="this pipeline loop and the one at line {a} are both inside the loop at line {outer}; each pipeline needs its own outermost loop",
    hint="Put the two pipelines in separate top-level loops, with `pl.system.sync_all()` between them",
    check=check,
    seed="两条流水循环不能嵌在同一个外层循环里",
)
