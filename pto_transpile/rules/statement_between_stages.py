from pto_transpile.rules.base import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        for stmt in loop.between:
            yield stmt, {"statement": ctx.source.code(stmt).strip().splitlines()[0]}


RULE = Rule(
    code="PTO013",
    name="statement-between-stages",
    title="A statement sits between two stage calls of the pipeline loop",
    message="`{statement}` sits between two stage calls; nothing may come between the first and the last stage",
    hint="Move it into a stage, or before the first stage (runs once per beat) or after the last one",
    check=check,
    seed="流水循环体内第一个 stage 与最后一个 stage 之间不允许插入其他语句",
)
