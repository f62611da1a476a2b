from pto_transpile.rules._picks import picks_outside_loops
from pto_transpile.rules.base import Rule


def check(ctx):
    first = {}
    for stmt, small, pick, standalone, target in picks_outside_loops(ctx.kernel):
        if not standalone:
            continue
        if target in first and first[target] is not stmt:
            yield small, {"target": target, "line": ctx.source.line_of(first[target])}
        first.setdefault(target, stmt)


RULE = Rule(
    code="PTO024",
    name="repeated-slot-pick",
    title="One variable takes a slot twice outside the pipeline loop",
    message="`{target}` already took a slot at line {line}; a variable may take a slot only once",
    hint="Use a separate variable for each slot you need",
    check=check,
    seed="同一个变量只能取一次 Tile 需要多个 Tile 请用多个变量",
)
