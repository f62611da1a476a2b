import libcst as cst

from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def _reachable(file):
    """Stages and the module functions stages call (transitively), each once with whether it
    is a stage: the functions a pipeline runs in its delayed iterations. A kernel may build
    its groups through its own helpers (kernel factories); those run once, in its body."""
    functions = {**file.helpers, **file.vector_functions, **{n: s.node for n, s in file.stages.items()}}
    stages = {s.node for s in file.stages.values()}
    todo = [s.node for s in file.stages.values()]
    seen: dict[cst.CSTNode, cst.FunctionDef] = {}
    while todo:
        fn = todo.pop()
        if fn in seen or not isinstance(fn, cst.FunctionDef):
            continue
        seen[fn] = fn
        for call in file.find(fn, cst.Call):
            if type(call.func) is cst.Name and call.func.value in functions:
                todo.append(functions[call.func.value])
    return [(fn, fn in stages) for fn in sorted(seen.values(), key=lambda f: f.name.value)]


def check(ctx):
    file = ctx.file
    for fn, is_stage in _reachable(file):
        for call in file.find(fn, cst.Call):
            if file.pl.path(call.func) == ("make_tile_group",):
                yield call, {"function": fn.name.value, "kind": "stage" if is_stage else "function"}


DOC = """\
## What it checks
`pl.make_tile_group(...)` is called in a stage function, or in a function a stage calls
(directly or through other functions). A kernel may build its groups through helpers it
calls itself (kernel factories): those run once, in the kernel body.

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
)
