from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
An op that is not in the table of known ops (which arguments it writes, which it reads)
receives a tile of a synchronised buffer: a cross-core buffer or one sharing addresses
with it. `vf.*` ops in vector functions are checked against their own table. A helper of
the file handed such a tile through `*args` or `**kwargs` is one too: the scan follows a
helper's named parameters only.

## Why it matters for pipelining
Syncs follow data: a read of a cross-core tile must wait for the producer's `set`, and a
write must wait until the other core released the tile. Without knowing whether the op
reads or writes its arguments, the transform cannot tell which edges (read-after-write,
write-after-read) it creates, so it refuses rather than miss a sync.

## Example
```python
    x = x_db.next()
    y = y_db.next()
    pl.sigmoid(y, x)
```

## Use instead
```python
    x = x_db.next()
    y = y_db.next()
    pl.ub_copy(y, x)  # a known op reads the cross-core tile
    pl.exp(y, y)
```
"""


RULE = Rule(
    code=codes.OP_ROLES_UNKNOWN,
    name="op-roles-unknown",
    title="An op with unknown read/write roles touches a synchronised buffer",
    message="`{op}` touches buffer(s) {buffers}, but which of its arguments it reads or writes is not known",
    hint="Use an op from the supported set on cross-core buffers, or copy through a local tile first",
    messages={"starred": "helper `{op}` is handed tile(s) of buffer(s) {buffers} through `{via}`, which the access "
                         "scan does not follow: which of them it reads or writes is not known",
              "unknown_callee": "`{op}` is called with tile(s) of buffer(s) {buffers}, but it is no function of the "
                                "file the access scan can name (a local name for one, or one picked from a container), "
                                "so which of them it reads or writes is not known",
              "stage_starred": "stage `{op}` takes tile(s) of buffer(s) {buffers} through `{via}`, which the access "
                               "scan does not follow: which of them it reads or writes, and so whether it produces "
                               "or consumes them, is not known"},
    hints={"starred": "Give `{op}` a named parameter for each tile it is handed (`def {op}(dst, src, ...)`), which "
                      "the scan binds by position or name",
           "unknown_callee": "Call the vector function or helper by the name its `def` binds at module level, "
                             "which the scan follows into",
           "stage_starred": "Give `{op}` a named parameter for each tile group or tile it is handed "
                            "(`def {op}(i, out, x_db, y_db)`), which the scan binds by position or name"},
    phase="analysis",
    seed="every op touching a synchronised buffer has known read/write roles",
    doc=DOC,
    raised_by=("pto_transpile/sync/scan.py",),
)
