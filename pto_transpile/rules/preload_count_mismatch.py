from pto_transpile.rules.base import Rule


def check(ctx):
    spec = ctx.kernel.preload
    values = ctx.preloads
    n = len(ctx.kernel.loops)
    if len(values) > 1 or (spec.is_sequence and values is spec.values):
        if len(values) != n and n:
            node = spec.node if spec.node is not None else ctx.kernel.jit_decorator
            yield node, {"count": len(values), "values": list(values), "loops": n}


RULE = Rule(
    code="PTO006",
    name="preload-count-mismatch",
    title="A preload list whose length differs from the number of pipeline loops",
    message="preload has {count} values {values} but the kernel holds {loops} pipeline loop(s)",
    hint="Give exactly one preload value per pipeline loop, in source order, or a single int shared by all",
    check=check,
    seed="传入列表时列表长度必须与 kernel 内流水循环的个数相同",
)
