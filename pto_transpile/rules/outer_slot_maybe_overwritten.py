from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
Like PTO056, a slot picked in the outer loop reaches a stage that runs `d` iterations
late, but the pipeline loop's trip count is not a compile-time constant, so whether the
group's tiles suffice depends on it: with `S` tiles the slot is safe when the pipeline loop
runs at least `ceil(d / (S - 1))` iterations per outer iteration.

## Why it matters for pipelining
The kernel is refused because its pipelined form is right only for some trip counts. If
the inner loop is short, a later outer iteration picks the same tile again and loads new
data into it before the delayed stage of the earlier outer iteration has read it; both
accesses are on one core, so nothing on the hardware reports it.

## Example
```python
for b in pl.range(0, nb):
    with pl.section_vector():
        q = q_db.next()              # q_db has 2 tiles; st runs 2 iterations late
    for ki in pl.range(0, k_len):    # k_len only known at run time
        ...
```

## Use instead
```python
q_db = pl.make_tile_group(..., mutex_ids=[20, 21, 22])   # 1 + d tiles: safe for any trip count
```
"""

RULE = Rule(
    code=codes.OUTER_SLOT_MAYBE_OVERWRITTEN,
    name="outer-slot-maybe-overwritten",
    title="A slot picked in the outer loop may be re-picked before its delayed stage reads it",
    message="`{var}` (a tile of `{group}`, {tiles} tile(s)) reaches `{stage}`, which runs "
            "{delay} iteration(s) late; {detail}",
    hint="Give `{group}` {need} tiles to be safe for any trip count",
    phase="analysis",
    seed="a tile picked outside the pipeline loop must survive until the delayed stages read it, for every trip count",
    doc=DOC,
    raised_by=("pto_transpile/sync/hazards.py",),
)
