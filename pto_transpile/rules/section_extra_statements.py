from pto_transpile.rules.base import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        seen = set()
        for s in loop.stages:
            if s.section not in ("cube", "vector") or id(s.holder) in seen:
                continue
            seen.add(id(s.holder))
            for other in s.siblings:
                yield other, {"stage": s.func, "statement": ctx.source.code(other).strip().splitlines()[0]}


RULE = Rule(
    code="PTO011",
    name="section-extra-statement",
    title="A section holding a stage also holds other statements",
    message="the section holding stage `{stage}` also contains `{statement}`; it may hold nothing but the stage call",
    hint="Move the statement into the stage function, or before the first / after the last stage of the loop",
    check=check,
    seed="每个 with 块里只放单个 stage 调用",
)
