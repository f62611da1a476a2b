from pto_transpile.rules._walk import stage_users
from pto_transpile.rules.base import Rule


def check(ctx):
    delays = ctx.schedule.delays
    for buf, users in stage_users(ctx).items():
        if len(users) != 2:
            continue
        tiles = ctx.kernel.buffers[buf].slot_count
        i, j = users
        need = delays[j] - delays[i] + 1
        if tiles is not None and tiles < need:
            a, b = ctx.loop.stages[i], ctx.loop.stages[j]
            yield ctx.kernel.buffers[buf].call, {
                "buffer": buf, "tiles": tiles, "need": need, "a": a.func, "b": b.func,
                "ahead": delays[j] - delays[i], "preload": ctx.schedule.preload,
                "_related": [(f"producer `{a.func}` (delay {delays[i]})", a.call),
                             (f"consumer `{b.func}` (delay {delays[j]})", b.call)],
            }


RULE = Rule(
    code="PTO043",
    name="too-few-tiles",
    title="A cross-core buffer has fewer tiles than the preload keeps live",
    message="cross-core buffer `{buffer}` has {tiles} tile(s), but at preload {preload} its producer `{a}` runs {ahead} iteration(s) ahead of its consumer `{b}`, so {need} tiles are live at once",
    hint="Give `{buffer}` {need} tiles (mutex_ids and fwd_ids/bwd_ids of length {need}), or lower the preload",
    phase="loop",
    check=check,
    seed="spec 3 / K53: tiles >= consumer delay - producer delay + 1",
)
