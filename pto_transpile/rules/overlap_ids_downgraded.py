from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
(Warning.) The transform needed one free event id per tile for the reverse syncs of an
address reuse (the ids of 0..15 not used by any `fwd_ids`/`bwd_ids` of the loop), found
too few, and gave that sync a single id shared by all tiles.

## Why it matters for pipelining
With one id per tile, tile `i` of the reused region is released to the writer as soon as
its own reader is done; with a single shared id, the releases must be consumed in order,
so the writer of iteration `i + 1` may wait for the reader of iteration `i`. The result is
still correct, but some overlap between the cores is lost.

## Example
```python
    x_db = pl.make_tile_group(..., addrs=0x0, mutex_ids=[16, 17, 18], fwd_ids=[0, 1, 2], bwd_ids=[3, 4, 5])
    p_db = pl.make_tile_group(..., fwd_ids=[6, 7, 8], bwd_ids=[9, 10, 11])
    y_db = pl.make_tile_group(..., addrs=0x0, fwd_ids=[12], bwd_ids=[13])  # 2 ids left, 3 needed
```

## Use instead
```python
    p_db = pl.make_tile_group(..., fwd_ids=[6, 7, 8], bwd_ids=[9])  # frees 10 and 11
```
"""


RULE = Rule(
    code=codes.OVERLAP_IDS_DOWNGRADED,
    name="overlap-ids-downgraded",
    title="An address-reuse sync shares one event id across tiles",
    message="too few free event ids: the address-reuse sync into {edge.dst.stage} uses 1 id instead of {wanted}; its "
            "tiles will hand over one at a time",
    hint="Free event ids (0-15) to let each tile hand over independently",
    phase="analysis",
    severity=Severity.WARNING,
    seed="syncs for address reuse get free event ids; when too few are free, some share one "
         "id (serialised, still correct)",
    doc=DOC,
    raised_by=("pto_transpile/sync/plan.py",),
)
