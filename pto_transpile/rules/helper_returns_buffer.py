from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
A plain function called from a stage returns a tile or a tile group (found while scanning
the stage's accesses through its helpers).

## Why it matters for pipelining
The sync analysis follows buffers by name from the stage's parameters into the ops that
read or write them (`pl.relu`, `pl.store`, ...) and into helpers through their arguments.
A tile coming back as a return value loses its group, so the op that later touches it
cannot be attributed to a buffer and its cross-core or address-reuse sync could be
missing.

## Example
```python
def relu_tile(y_db, x):
    y = y_db.next()
    pl.relu(y, x)
    return y
```

## Use instead
```python
def relu_tile(y, x):  # the stage picks `y = y_db.next()` and passes it in
    pl.relu(y, x)
```
"""


RULE = Rule(
    code=codes.HELPER_RETURNS_BUFFER,
    name="helper-returns-buffer",
    title="A function called from a stage returns a tile or tile group",
    message="`{helper}` is called from a stage and returns `{value}`, a tile or tile group",
    hint="Pass the buffer into `{helper}` as an argument and let it act on it instead of returning it",
    phase="analysis",
    seed="functions called by stages must not return a tile or a tile group",
    doc=DOC,
    raised_by=("pto_transpile/sync/scan.py",),
)
