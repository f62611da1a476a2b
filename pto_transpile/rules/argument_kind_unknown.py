from pto_transpile import codes
from pto_transpile.rules import _examples as ex
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
A stage argument's kind cannot be decided statically: it is bound from a call the tool
does not know (a function imported from another module, a non-`pl` call), so it is not
clear whether it is a per-iteration scalar or a handle (tensor, tile group, struct). A
function of the file is read: its return annotation (`-> int`), else what its `return`s
give from the kinds of the arguments of the call (`offset(ki, sub_id)` of `return ki *
TILE + sub_id * HALF` is a scalar).

## Why it matters for pipelining
Scalars a stage receives are snapshotted into the ctx ring every beat, so the stage,
running `delay` iterations late, sees its own iteration's values; handles pass through.
A wrong guess hands a delayed stage the newest value, or puts a handle in a ctx field.

## Example
```python
    for ki in pl.range(0, N):
        row = offset(ki, sub_id)  # `from tiling_util import offset`; then st(row, out, x_db)
```

## Use instead
```python
    for ki in pl.range(0, N):
        row = ki * TILE + sub_id * HALF
```
"""

_ST = '''\
@pl.pipeline.stage
def st(row, out, x_db):
    x = x_db.next()
    pl.store(out, x, [row, 0])'''

_HELPER = '''\
def offset(ki, sub_id):
    return ki * TILE + sub_id * HALF'''

#: a vector stage that picks one of three per-AIV tiles by a counter
_RING_ST = '''\
@pl.pipeline.stage
def st(ki, sub_id, out, x_db, ring):
    x = x_db.next()
    pl.add(ring[ki % 3], ring[ki % 3], x)  # a running sum per ring entry, on the V pipe only
    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])'''

_RING_DECLS = """\
with pl.section_vector():
    r0 = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x4000)
    r1 = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x6000)
    r2 = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x8000)
    ring = {ring}"""

INVALID = (
    ex.kernel(imports=ex.IMPORTS + "\nfrom tiling_util import offset", st=_ST,
              loop=ex.loop("row = offset(ki, sub_id)", ex.cube(), ex.vector("st(row, out, x_db)  # E: PTO054"))),
    # a display mixing tiles and a scalar is neither a handle nor a scalar
    ex.kernel(st=_RING_ST, decls=_RING_DECLS.format(ring="(r0, r1, sub_id)"),
              loop=ex.loop(ex.cube(), ex.vector("st(ki, sub_id, out, x_db, ring)  # E: PTO054"))),
)

VALID = (
    ex.kernel(st=_ST, loop=ex.loop("row = ki * TILE + sub_id * HALF", ex.cube(), ex.vector("st(row, out, x_db)"))),
    # a helper of the file returning what it computes from two scalars: a scalar, which travels
    ex.kernel(helpers=_HELPER, st=_ST,
              loop=ex.loop("row = offset(ki, sub_id)", ex.cube(), ex.vector("st(row, out, x_db)"))),
    # a tuple of tiles is a handle: it passes through; the counter indexing it travels
    ex.kernel(st=_RING_ST, decls=_RING_DECLS.format(ring="(r0, r1, r2)"),
              loop=ex.loop(ex.cube(), ex.vector("st(ki, sub_id, out, x_db, ring)"))),
    ex.kernel(st=_RING_ST, decls=_RING_DECLS.format(ring="[r0, r1, r2]"),
              loop=ex.loop(ex.cube(), ex.vector("st(ki, sub_id, out, x_db, ring)"))),
)


RULE = Rule(
    code=codes.ARGUMENT_KIND_UNKNOWN,
    name="argument-kind-unknown",
    title="Whether a stage argument must travel with its task cannot be decided",
    message="cannot tell whether `{names}` (passed to stage `{stage}`) is a scalar or a handle, so whether "
            "it must travel in the ctx ring",
    hint="Bind `{names}` from a `pl` call, a literal or an annotated parameter so its kind is known",
    phase="analysis",
    seed="where a value's kind (scalar or handle) cannot be decided statically, say so rather than guess",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
    raised_by=("pto_transpile/sync/ctxring.py",),
)
