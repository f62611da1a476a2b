from pto_transpile.rules._walk import stage_users
from pto_transpile.rules.base import Rule


def check(ctx):
    for buf, users in stage_users(ctx).items():
        stages = [ctx.loop.stages[i] for i in users]
        names = ", ".join(f"`{s.func}`" for s in stages)
        if len(users) == 1:
            yield stages[0].call, {"buffer": buf, "detail": f"is used only by {names} in this pipeline loop; it needs a producer and a consumer"}
        elif len(users) > 2:
            yield stages[2].call, {"buffer": buf, "detail": f"is used by {len(users)} stages ({names}); one buffer carries one producer/consumer pair"}


RULE = Rule(
    code="PTO033",
    name="cross-core-buffer-user-count",
    title="A cross-core buffer is not used by exactly two stages",
    message="cross-core buffer `{buffer}` {detail}",
    hint="Declare one tile group per producer/consumer pair, and pass each to exactly one cube and one vector stage",
    phase="loop",
    check=check,
    seed="一个跨核 Buffer 需要恰好被两个 stage 使用",
)
