import libcst as cst

from pto_transpile import codes
from pto_transpile.rules import _examples as ex
from pto_transpile.rules.base import Rule


def _reachable(file):
    """Stages and the module functions that kernels and stages call (transitively)."""
    functions = {**file.helpers, **file.vector_functions, **{n: s.node for n, s in file.stages.items()}}
    todo = list(file.all_jit_kernels) + [s.node for s in file.stages.values()]
    seen = {s for s in file.stages}
    while todo:
        fn = todo.pop()
        for call in file.find(fn, cst.Call):
            if isinstance(call.func, cst.Name) and call.func.value in functions and call.func.value not in seen:
                seen.add(call.func.value)
                todo.append(functions[call.func.value])
    return [functions[n] for n in sorted(seen)]


def check(ctx):
    file = ctx.file
    for stmt in _reachable(file):
        for call in file.find(stmt, cst.Call):
            if file.pl.path(call.func) == ("make_tile_group",):
                kind = "stage" if stmt.name.value in file.stages else "function"
                yield call, {"function": stmt.name.value, "kind": kind}


DOC = """\
## What it checks
`pl.make_tile_group(...)` is called outside the `@pl.jit` kernel body: in a stage function
or in a plain helper function.

## Why it matters for pipelining
The transform learns every buffer's memory space, addresses, tile count, mutex ids and
event ids from the kernel body's declarations, once, before the loop. A group declared in
a stage is re-created every (delayed) iteration, does not rotate, and is invisible to the
sync analysis.

## Example
```python
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    y_db = pl.make_tile_group(type=..., addrs=0x4000, mutex_ids=[12, 13])
    ...
```

## Use instead
```python
    with pl.section_vector():  # in the kernel; passed on as st(ki, sub_id, out, x_db, y_db)
        y_db = pl.make_tile_group(type=..., addrs=0x4000, mutex_ids=[12, 13])
```
"""

_DECL = '''\
y_db = pl.make_tile_group(
    type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
    addrs=0x4000,
    mutex_ids=[12, 13],
)'''

_BODY = '''\
    x = x_db.next()
    y = y_db.next()
    pl.relu(y, x)
    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])'''

_HELPER = "def half_buffer():\n" + ex.textwrap.indent(
    _DECL.replace("y_db = pl.make_tile_group(", "return pl.make_tile_group(  # E: PTO020"), "    ")

INVALID = (
    ex.kernel(st="@pl.pipeline.stage\ndef st(ki, sub_id, out, x_db):\n"
              + ex.textwrap.indent(_DECL.replace("(\n", "(  # E: PTO020\n", 1), "    ") + "\n" + _BODY),
    ex.kernel(helpers=_HELPER, st="@pl.pipeline.stage\ndef st(ki, sub_id, out, x_db, y_db):\n" + _BODY,
              vec_decls=ex.VEC_DECLS + "\n    y_db = half_buffer()",
              # the helper's result has no known kind either, so PTO054 follows
              loop=ex.loop(ex.cube(), ex.vector("st(ki, sub_id, out, x_db, y_db)  # E: PTO054"))),
)

VALID = (
    ex.kernel(st="@pl.pipeline.stage\ndef st(ki, sub_id, out, x_db, y_db):\n" + _BODY,
              vec_decls=ex.VEC_DECLS + "\n" + ex.textwrap.indent(_DECL, "    "),
              loop=ex.loop(ex.cube(), ex.vector("st(ki, sub_id, out, x_db, y_db)"))),
)


RULE = Rule(
    code=codes.TILE_GROUP_OUTSIDE_KERNEL,
    name="tile-group-outside-kernel",
    title="A tile group is declared outside the kernel body",
    message="{kind} `{function}` declares a tile group with `pl.make_tile_group()`; "
            "declarations belong in the kernel body",
    hint="Declare the tile group in the kernel body and pass it to `{function}` as an argument",
    phase="file",
    check=check,
    seed="tile groups (cross-core and local) are declared in the kernel body, not in functions called by stages",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)
