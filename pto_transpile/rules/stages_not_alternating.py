from pto_transpile.rules.base import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        staged = [s for s in loop.stages if s.section in ("cube", "vector")]
        for prev, cur in zip(staged, staged[1:]):
            if prev.section == cur.section and prev.holder is not cur.holder:
                yield cur.call, {"prev": prev.func, "stage": cur.func, "core": cur.section}


RULE = Rule(
    code="PTO012",
    name="stages-not-alternating",
    title="Two consecutive stages run on the same core",
    message="stages `{prev}` and `{stage}` are both on the {core} core; stages must alternate cube/vector (C->V->C->V...)",
    hint="Merge `{prev}` and `{stage}` into one stage, or put a stage of the other core between them",
    check=check,
    seed="stage 调用需要严格按 cube/vector 交替排列 不允许连续两个 stage 落在同一个核上",
)
