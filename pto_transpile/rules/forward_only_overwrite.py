from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
A forward-only cross-core buffer (`fwd_ids` without `bwd_ids`) has too few tiles for the
schedule: nothing the transform inserts keeps its producer from overwriting a tile before
the consumer on the other core has read it. The check unrolls the pipelined schedule (each
core runs its stages in beat order, each inserted `set`/`wait` links two stage executions)
and asks whether the consumer's read of task `t` is ordered before the producer's write of
task `t + tiles`.

## Why it matters for pipelining
Without `bwd_ids` no release sync is emitted: the feature description guarantees only that
the consumer reads finished data, not that the producer waits before overwriting. Raising
`preload` lets the producer run further ahead; when the other syncs no longer hold it back,
the consumer reads the next iteration's data (`--simulate` reports the race).

## Example
```python
y_db = pl.make_tile_group(..., mutex_ids=[4, 5], fwd_ids=[4, 5])   # preload=2
```

## Use instead
```python
y_db = pl.make_tile_group(..., mutex_ids=[4, 5], fwd_ids=[4, 5], bwd_ids=[6, 7])
```
(or as many tiles as the message says).
"""

RULE = Rule(
    code=codes.FORWARD_ONLY_OVERWRITE,
    name="forward-only-overwrite",
    title="A forward-only buffer's producer can overwrite a tile before it is read",
    message="forward-only buffer `{buffer}` has {tiles} tile(s); at preload {preload} nothing stops `{producer}` from "
            "overwriting a tile before `{consumer}` read it ({need} would be ordered by the other syncs)",
    hint="Add `bwd_ids` to `{buffer}` so the transform syncs the release, or give it {need}",
    hints={"bwd-only": "Add `bwd_ids` to `{buffer}` (one event id per tile, or one id) so the transform syncs the "
                       "release: more tiles do not help, nothing else orders the consumer's read before the "
                       "producer's next write"},
    phase="analysis",
    seed="with fwd_ids only, nothing stops the producer overwriting a tile the consumer has not read; a kernel "
         "that may do so is never written",
    doc=DOC,
    raised_by=("pto_transpile/sync/hazards.py",),
)
