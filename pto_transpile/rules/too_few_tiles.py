from pto_transpile import codes
from pto_transpile.rules._walk import stage_users
from pto_transpile.rules.rule import Rule
from pto_transpile.sync.schedule import schedule_for


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
                "lower": _lower(ctx, i, j, tiles),
                "growth": growth(ctx.kernel, ctx.kernel.buffers[buf], need),
                "_related": [(f"producer `{a.func}` (delay {delays[i]})", a.call),
                             (f"consumer `{b.func}` (delay {delays[j]})", b.call)],
            }


def _lower(ctx, i: int, j: int, tiles: int) -> str:
    """The hint's other way out: the largest lower preload at which `tiles` suffice, if any."""
    sections = [s.section for s in ctx.loop.stages]

    def fits(preload: int) -> bool:
        delays = schedule_for(sections, preload).delays
        return delays[j] - delays[i] + 1 <= tiles

    # from preload 1 on, the distance between two stages grows with the preload (each delay is a
    # constant plus the preload times the stages before it on its core): the largest that fits is
    # found by halving, not by trying each (probe h231: `--preload 99999999999999999999` hung)
    low, high = 0, ctx.schedule.preload - 1  # (`low` fits, or is 0)
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    if not fits(low):
        return ""
    return ". Or use preload 0 (the serial loop with the syncs inserted)" if low == 0 \
        else f". Or lower the preload to {low}"


def growth(kernel, buf, need: int) -> str:
    """What adding tiles does to the group's address range: it grows past its last tile,
    possibly into the next buffer of the same memory."""
    if not buf.ranges or buf.slot_bytes is None:
        return "; the group's address range then grows, so check it does not overlap the next buffer"
    start, end = min(r[0] for r in buf.ranges), max(r[1] for r in buf.ranges)
    new_end = end + (need - len(buf.ranges)) * buf.slot_bytes
    later = sorted((min(r[0] for r in other.ranges), name) for name, other in kernel.buffers.items()
                   if other is not buf and other.memory == buf.memory and other.ranges
                   and min(r[0] for r in other.ranges) >= end)
    if not later:
        return f"; its address range then grows to [{start:#x}, {new_end:#x}) (no later {buf.memory} buffer)"
    at, name = later[0]
    if at < new_end:
        return (f"; its address range then grows to [{start:#x}, {new_end:#x}) and overlaps `{name}` at {at:#x}, "
                f"the next {buf.memory} buffer: move `{name}` up too")
    return f"; its address range then grows to [{start:#x}, {new_end:#x}), still below `{name}` at {at:#x}"


DOC = """\
## What it checks
A cross-core buffer has fewer tiles than the schedule keeps in flight: at the configured
`preload`, its producer runs `d` iterations ahead of its consumer, so `d + 1` tiles are
live at once. (Delays: a core's first stage runs 1 behind the upstream stage of the other
core, each further stage on that core `preload` behind the previous one.)

## Why it matters for pipelining
Iteration `i` writes tile `i % tiles`. If the producer is `d` iterations ahead and there
are at most `d` tiles, it must overwrite a tile the consumer has not read yet, so with
`bwd_ids` the two cores would wait on each other for ever, and without them data is lost.
A typical cause is raising `preload` without growing the buffers.

## Example
```python
@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=3))
...
    p_db = pl.make_tile_group(type=..., mutex_ids=[14, 15], fwd_ids=[4, 5], bwd_ids=[6, 7])
```

## Use instead
```python
    p_db = pl.make_tile_group(type=..., mutex_ids=[14, 15, 12], fwd_ids=[4, 5, 12], bwd_ids=[6, 7, 13])
```
(or keep two tiles and use `preload=2`).
"""


RULE = Rule(
    code=codes.TOO_FEW_TILES,
    name="too-few-tiles",
    title="A cross-core buffer has fewer tiles than the preload keeps live",
    message="cross-core buffer `{buffer}` has {tiles} tile(s), but at preload {preload} its producer `{a}` runs "
            "{ahead} iteration(s) ahead of its consumer `{b}`, so {need} tiles are live at once",
    hint="Give `{buffer}` {need} tiles (mutex_ids and fwd_ids/bwd_ids of length {need}){growth}{lower}",
    phase="loop",
    check=check,
    seed="a cross-core buffer has at least (consumer delay - producer delay + 1) tiles at the configured preload",
    doc=DOC,
)
