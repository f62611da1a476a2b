from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
A slot picked in the outer loop (`q = q_db.next()` before the pipeline loop) is handed to a
stage that runs `d` iterations late, and the group has too few tiles: a later outer
iteration picks the same tile again and loads new data into it before the delayed stage of
the earlier outer iteration has read it. With a pipeline loop of `K` iterations per outer
iteration the group needs `1 + ceil(d / K)` tiles.

## Why it matters for pipelining
The slot travels in the ctx ring as an index (`_pl_idx_<group>`), so the delayed stage
addresses the right tile, but nothing makes the next pick wait for it: both accesses are
on the same core, ordered by program order, so the hardware sees no race and the stage
silently reads the next block's data. Serially (`preload=0`) nothing is delayed.

## Example
```python
for b in pl.range(0, NB):
    with pl.section_vector():
        q = q_db.next()          # q_db has 1 tile
        pl.load(q, qin, [b * HALF, 0])
    for ki in pl.range(0, 1):    # st runs 1 iteration late
        ...
            st(ki, sub_id, out, x_db, q)
```

## Use instead
```python
q_db = pl.make_tile_group(..., mutex_ids=[20, 21])   # 1 + ceil(1 / 1) = 2 tiles
```
"""

RULE = Rule(
    code=codes.OUTER_SLOT_OVERWRITTEN,
    name="outer-slot-overwritten",
    title="A slot picked in the outer loop is re-picked before its delayed stage reads it",
    message="`{var}` (a tile of `{group}`, {tiles} tile(s)) reaches `{stage}`, which runs "
            "{delay} iteration(s) late; {detail}",
    hint="Give `{group}` {need} tiles (one mutex id each){lower}",
    phase="analysis",
    seed="a tile picked outside the pipeline loop must survive until the delayed stages read it",
    doc=DOC,
    raised_by=("pto_transpile/sync/hazards.py",),
)
