from pto_transpile.rules.base import Rule


def check(ctx):
    for node, _section in ctx.kernel.dynamic_stage_ifs:
        yield node.test, {"cond": ctx.source.code(node.test)}


RULE = Rule(
    code="PTO007",
    name="dynamic-branch-around-stage",
    title="A runtime `if` decides whether a stage runs",
    message="branch condition `{cond}` wraps a stage call but is not a compile-time constant",
    hint="Make the condition a module-level constant, or move the `if` inside the stage body",
    check=check,
    seed="允许通过 if 语句判断 stage 执行场景但分支条件必须为编译期常量",
)
