import libcst as cst

from pto_transpile.rules.base import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        if not isinstance(loop.node.target, cst.Name):
            yield loop.node.target, {"target": ctx.source.code(loop.node.target)}


RULE = Rule(
    code="PTO015",
    name="loop-target-not-name",
    title="The pipeline loop variable is not a simple name",
    message="the pipeline loop variable `{target}` is not a simple name; tuple unpacking is not supported",
    hint="Iterate with one name, `for ki in pl.range(...)`, and unpack inside the stages",
    check=check,
    seed="K10 (L7)",
)
