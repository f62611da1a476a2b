from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
An op in a stage moves data into or out of a synchronised buffer (`pl.move`, `pl.insert`,
`pl.store`), but one of its tiles does not resolve to a declared tile group, so the
hardware pipe that executes it cannot be determined. Typical causes: tiles taken through
a tuple (`bufs.acc.next()`) or made by a call the scan does not know.

## Why it matters for pipelining
Cross-core `wait`/`set` are issued on the pipe of the op touching the buffer, which for a
move depends on both memory spaces (Acc to UB runs on FIX, L1 to L0 on MTE1). A guess could
let the other core see half-written data, so the access is dropped and reported and the
pipeline is not built until it is fixed.

## Example
```python
def mm(ki, a, a_l1, left_db, right_db, bufs, x_db):
    acc = bufs.acc.next()  # later: pl.move(x, acc, acc_to_vec_mode=...)
```

## Use instead
```python
def mm(ki, a, a_l1, left_db, right_db, acc_db, x_db):
    acc = acc_db.next()
```
"""


RULE = Rule(
    code=codes.UNKNOWN_PIPE,
    name="unknown-pipe",
    title="The pipe of an op on a synchronised buffer cannot be determined",
    message="cannot determine the pipe of `pl.{op}` ({side}): its tiles do not resolve to declared tile groups",
    hint="Take the tiles of this op from tile groups passed to the stage (`t = g.next()`), "
         "so their memory spaces are known",
    phase="analysis",
    seed="every op touching a synchronised buffer has a known pipe",
    doc=DOC,
    raised_by=("pto_transpile/sync/scan.py",),
)
