from pto_transpile.rules.base import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        by_holder = {}
        for s in loop.stages:
            if s.section in ("cube", "vector"):
                by_holder.setdefault(id(s.holder), []).append(s)
        for group in by_holder.values():
            for extra in group[1:]:
                yield extra.call, {"first": group[0].func, "stage": extra.func}


RULE = Rule(
    code="PTO010",
    name="multiple-stages-in-section",
    title="One section block holds more than one stage call",
    message="section block holds stage `{first}` and also stage `{stage}`; a section holds exactly one stage",
    hint="Give `{stage}` its own `with pl.section_*():` block (and keep cube/vector alternating)",
    check=check,
    seed="每个 with 块里只放单个 stage 调用",
)
