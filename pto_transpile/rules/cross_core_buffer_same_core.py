from pto_transpile.rules._walk import stage_users
from pto_transpile.rules.base import Rule


def check(ctx):
    for buf, users in stage_users(ctx).items():
        if len(users) != 2:
            continue
        a, b = (ctx.loop.stages[i] for i in users)
        if a.section == b.section:
            yield b.call, {"buffer": buf, "a": a.func, "b": b.func, "core": a.section}


RULE = Rule(
    code="PTO034",
    name="cross-core-buffer-same-core",
    title="Both users of a cross-core buffer run on the same core",
    message="cross-core buffer `{buffer}` is used by `{a}` and `{b}`, both on the {core} core; it must hand data between cube and vector",
    hint="Drop fwd_ids/bwd_ids from `{buffer}` (same-core order comes from auto_mutex), or hand it to a stage of the other core",
    phase="loop",
    check=check,
    seed="这两个 stage 分别在 cube 和 vector 上构成一对一的生产者/消费者关系",
)
