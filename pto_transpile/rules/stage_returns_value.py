import libcst as cst

from pto_transpile import codes
from pto_transpile.read.reader import stage_call_of
from pto_transpile.rules.rule import Rule


def _returns(file, node):
    """`return <value>` statements of the function itself (not of nested defs or lambdas)."""
    return [n for n in file.find(node.body, cst.Return, skip_functions=True) if n.value is not None]


def check(ctx):
    file = ctx.file
    for stage in file.stages.values():
        for ret in _returns(file, stage.node):
            yield ret, {"stage": stage.name}
    for kernel in file.kernels:  # a kernel that takes a stage's value: `g = st(...)`
        for assign in file.find(kernel.node.body, cst.Assign):
            call = stage_call_of(assign, file.stages)
            if call is not None:
                yield call, {"stage": cst.ensure_type(call.func, cst.Name).value,
                             "target": file.source.code(assign.targets[0].target), "_message": "assigned",
                             "_hint": "assigned"}


DOC = """\
## What it checks
A `@pl.pipeline.stage` function contains `return <value>`.

## Why it matters for pipelining
In the pipelined loop a stage runs `delay` iterations after the code that called it in
the serial loop, from arguments snapshotted in the ctx ring; there is no caller waiting
for a result in the same iteration. Results must travel through tile groups, whose
handovers the transform synchronises.

## Example
```python
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    x = x_db.next()
    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])
    return x
```

## Use instead
```python
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    x = x_db.next()
    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])
```
"""


RULE = Rule(
    code=codes.STAGE_RETURNS_VALUE,
    name="stage-returns-value",
    title="A stage function returns a value",
    message="stage `{stage}` returns a value; stages act on buffers and must not return anything",
    hint="Write the result into a tile group passed to the stage, and use a bare `return` (or none)",
    messages={"assigned": "the value of stage `{stage}` is assigned to `{target}`; a stage returns nothing its "
                          "caller can use"},
    hints={"assigned": "Call `{stage}(...)` as a statement of its own, and hand what later stages need through a "
                       "tile group"},
    phase="file",
    check=check,
    seed="stage functions return no value",
    doc=DOC,
)
