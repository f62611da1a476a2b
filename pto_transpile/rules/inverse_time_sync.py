from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
An address-reuse sync would make a stage wait for a task that, at this preload, runs
later than itself: the writer of the reusing buffer is scheduled before the reader of
the buffer it overwrites has run the earlier task. Found while planning the syncs.

## Why it matters for pipelining
Delays shift each stage by whole iterations. With reuse between `x_db` (read by `act`,
delay 1) and `y_db` (written by `mm2`, delay `preload`), the write of iteration `i` must
wait for the read of the same tile from iteration `i - tiles + ...`; when the delays put
that read in the future, no prefire can provide the permit and the cores deadlock (or,
without the sync, data is overwritten before it is read).

## Example
```python
@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=2))
...
    x_db = pl.make_tile_group(..., addrs=0x0, mutex_ids=[16, 17], ...)
    y_db = pl.make_tile_group(..., addrs=0x0, mutex_ids=[16, 17], ...)  # reuses x_db
```

## Use instead
```python
@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
```
(or give `y_db` its own addresses).
"""


RULE = Rule(
    code=codes.INVERSE_TIME_SYNC,
    name="inverse-time-sync",
    title="A sync would wait on a task that runs later",
    message="sync edge {edge.src.stage} -> {edge.dst.stage} on `{edge.dst.buffer}` runs inverse-time at this preload "
            "(task offset {skew}): the consumer would wait on a task that runs later",
    hint="Lower the preload, or stop sharing addresses between these buffers",
    hints={"addresses": "Stop sharing addresses between these buffers (preload 1 is the lowest that pipelines)"},
    phase="analysis",
    seed="no sync may wait for a task that runs later than the waiting one",
    doc=DOC,
    raised_by=("pto_transpile/sync/plan.py",),
)
