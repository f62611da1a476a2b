from pto_transpile.rules.base import Rule


def check(ctx):
    k = ctx.kernel
    if k.loops:
        return
    if not ctx.file.stages:
        yield k.node.name, {"detail": "the file has no `@pl.pipeline.stage` functions"}
    else:
        yield k.node.name, {"detail": "no `for` loop calls a stage inside `with pl.section_cube()/section_vector()` blocks"}


RULE = Rule(
    code="PTO004",
    name="no-pipeline-loop",
    title="A pipeline kernel has no pipeline loop",
    message="kernel has `pipeline=` but nothing to pipeline: {detail}",
    hint="Call each `@pl.pipeline.stage` function from a `for ... in pl.range(...)` loop, one per `with pl.section_*()` block",
    check=check,
    seed="K5/K6: no stage functions, or stages never called in a loop",
)
