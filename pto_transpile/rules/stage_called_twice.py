from pto_transpile.rules.base import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        seen = {}
        for s in loop.stages:
            if s.func in seen:
                yield s.call, {"stage": s.func, "line": ctx.source.line_of(seen[s.func].call)}
            else:
                seen[s.func] = s


RULE = Rule(
    code="PTO014",
    name="stage-called-twice",
    title="The same stage function is called twice in one pipeline loop",
    message="stage `{stage}` is already called at line {line} in this pipeline loop",
    hint="Define a second stage function (a stage may run once per iteration) or merge the work",
    check=check,
    seed="同一个 stage 函数在一条流水循环内只能调用一次",
)
