from pto_transpile.rules.base import Rule


def check(ctx):
    for name, call in ctx.kernel.stray_stage_calls:
        yield call, {"stage": name}


RULE = Rule(
    code="PTO055",
    name="stage-call-outside-loop",
    title="A stage is called outside any pipeline loop",
    message="stage `{stage}` is called outside a pipeline loop",
    hint="Call stages only from the pipeline `for` loop, each in its own section block",
    check=check,
    seed="同一条流水的 stage 调用需要放在同一个 for 循环内",
)
