from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
Address reuse between a cross-core buffer and another buffer needs reverse
(write-after-read) syncs that the user never declared ids for. The transform allocates
them from the event ids 0..15 not used by any `fwd_ids`/`bwd_ids` of the loop; this
reports that not even one id is left, after downgrading groups to a single shared id.

## Why it matters for pipelining
When `y_db` reuses the bytes of `x_db`, the writer of `y` must wait until the reader of
`x` on the other core is done with the same tile, one iteration or more later in the
pipelined schedule. That wait needs its own cross-core event flag; without a free flag
the reuse cannot be made safe.

## Example
```python
    x_db = pl.make_tile_group(..., addrs=0x0, fwd_ids=[0, 1, 2], bwd_ids=[3, 4, 5])
    p_db = pl.make_tile_group(..., fwd_ids=[6, 7, 8], bwd_ids=[9, 10, 11])
    y_db = pl.make_tile_group(..., addrs=0x0, fwd_ids=[12, 14, 15], bwd_ids=[13])  # all 16 used
```

## Use instead
```python
    y_db = pl.make_tile_group(..., addrs=0x0, fwd_ids=[12], bwd_ids=[13])  # 14, 15 stay free
```
"""


RULE = Rule(
    code=codes.OVERLAP_IDS_EXHAUSTED,
    name="overlap-ids-exhausted",
    title="Not enough free event ids for address-reuse syncs",
    message="not enough free event ids (0-15) for address-reuse reverse syncs: need {need}, "
            "have {free} free (used: {used})",
    hint="Free some ids: share one id per buffer (`bwd_ids=[k]`), or stop reusing addresses between these buffers",
    phase="analysis",
    seed="syncs for address reuse need free event ids (0-15)",
    doc=DOC,
    raised_by=("pto_transpile/sync/plan.py",),
)
