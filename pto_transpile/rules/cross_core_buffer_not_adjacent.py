from pto_transpile.rules._walk import stage_users
from pto_transpile.rules.base import Rule


def check(ctx):
    for buf, users in stage_users(ctx).items():
        if len(users) != 2 or users[1] - users[0] == 1:
            continue
        a, b = (ctx.loop.stages[i] for i in users)
        if a.section == b.section:
            continue
        yield b.call, {"buffer": buf, "a": a.func, "b": b.func, "n": users[1] - users[0] - 1}


RULE = Rule(
    code="PTO035",
    name="cross-core-buffer-not-adjacent",
    title="A cross-core buffer is handed between stages that are not neighbours",
    message="cross-core buffer `{buffer}` is handed from `{a}` to `{b}` with {n} stage(s) in between",
    hint="Hand the data on through the stages in between, one buffer per neighbouring pair",
    phase="loop",
    check=check,
    seed="K49: producer and consumer must be consecutive stages",
)
