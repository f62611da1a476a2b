from pto_transpile.kinds import slot_access
from pto_transpile.rules._picks import picks_outside_loops
from pto_transpile.rules.base import Rule


def check(ctx):
    for _stmt, small, pick, standalone, _target in picks_outside_loops(ctx.kernel):
        if not standalone:
            group, accessor = slot_access(pick, ctx.kernel.buffers)
            yield pick, {"group": group, "pick": ctx.source.code(pick), "statement": ctx.source.code(small)}


RULE = Rule(
    code="PTO023",
    name="buried-slot-pick",
    title="A slot pick outside the pipeline loop is part of a larger expression",
    message="`{pick}` takes a slot of `{group}` inside a larger expression (`{statement}`)",
    hint="Assign the slot on its own line first: `slot = {pick}`, then use `slot`",
    check=check,
    seed="在流水循环之外取 Tile 时必须单独写成一条赋值语句 slot = group.next() 不能嵌在更大的表达式里",
)
