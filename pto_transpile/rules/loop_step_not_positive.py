import libcst as cst

from pto_transpile.kinds import names_in
from pto_transpile.rules.base import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        step = loop.step
        if step is None:
            continue
        text = ctx.source.code(step)
        if isinstance(step, cst.UnaryOperation) and isinstance(step.operator, cst.Minus):
            yield step, {"step": text, "detail": "steps backwards"}
            continue
        value = None if set(names_in(step)) & ctx.kernel.kinds.keys() else ctx.file.evaluator.try_eval(step)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0:
            yield step, {"step": text, "detail": f"has step {value}"}


RULE = Rule(
    code="PTO017",
    name="loop-step-not-positive",
    title="The pipeline loop runs backwards or does not advance",
    message="the pipeline loop {detail} (`{step}`); only forward iteration with a positive step is supported",
    hint="Iterate forwards with a positive step and compute the reversed index inside the stages, e.g. `n - 1 - i`",
    check=check,
    seed="流水循环的步长必须为正 不支持倒序迭代",
)
