from pto_transpile.rules.base import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        for s in loop.stages:
            if s.section == "with":
                yield s.call, {"stage": s.func}


RULE = Rule(
    code="PTO009",
    name="stage-in-plain-with",
    title="A stage call is inside a `with` block that is not a section",
    message="stage call `{stage}` is inside a `with` block that is not `pl.section_cube()`/`pl.section_vector()`",
    hint="Put the stage call directly in a `with pl.section_cube():` or `with pl.section_vector():` block",
    check=check,
    seed="K7 (C1): stage calls must be wrapped in a section",
)
