from pto_transpile.rules.base import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        for s in loop.stages:
            if s.section == "":
                yield s.call, {"stage": s.func}


RULE = Rule(
    code="PTO008",
    name="stage-outside-section",
    title="A stage call sits directly in the pipeline loop body",
    message="stage call `{stage}` is not inside a `with pl.section_cube()` or `with pl.section_vector()` block",
    hint="Wrap the call in the section of the core that runs it: `with pl.section_cube():` or `with pl.section_vector():`",
    check=check,
    seed="每个 with section_cube()/section_vector() 块里只放单个 stage 调用",
)
