import libcst as cst

from pto_transpile import codes
from pto_transpile.read.kinds import SLOT_ACCESSORS
from pto_transpile.read.localnames import local_names
from pto_transpile.rules._walk import calls_in, stage_methods, unknown_callee
from pto_transpile.rules.rule import Rule
from pto_transpile.sync.scan import tracked_buffers


def _touches(call, kernel, tracked, file, local: set[str]):
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in SLOT_ACCESSORS and isinstance(func.value, cst.Name):
        g = kernel.buffers.get(func.value.value)
        if g is not None and g.name in tracked:
            return g.name, f"{func.value.value}.{func.attr.value}()"
    if isinstance(func, cst.Name) and func.value in file.stages:
        return None
    if unknown_callee(file, func, local):
        return None  # (what the name calls is not known: PTO070 says so, where this would blame a stage)
    for arg in call.args:
        v = arg.value
        if isinstance(v, cst.Name):
            g = kernel.buffers.get(v.value) or kernel.buffers.get(kernel.slot_vars.get(v.value, ""))
            if g is not None and g.name in tracked:
                return g.name, file.source.code(call.func) + "(...)"
        if isinstance(v, cst.Subscript) and isinstance(v.value, cst.Name):
            g = kernel.buffers.get(v.value.value)
            if g is not None and g.name in tracked:
                return g.name, file.source.code(v)
    return None


def check(ctx):
    kernel = ctx.kernel
    tracked = tracked_buffers(kernel)
    local = local_names(ctx.file, kernel.node)
    for loop in kernel.loops:
        outside = list(loop.prologue) + list(loop.epilogue) + list(loop.between)
        outside += [s for st in loop.stages for s in st.siblings]
        for stmt in outside:
            for call in calls_in(stmt):
                hit = _touches(call, kernel, tracked, ctx.file, local)
                if hit:
                    func = call.func
                    # (`Stages.project(...)`, `Outer.Stages.project(...)`, `Stages().project(...)`: probe h245)
                    method = next((m for m in stage_methods(ctx.file) if m[1] == func.attr.value), None) \
                        if isinstance(func, cst.Attribute) else None
                    if method is not None:
                        # (probe h242: a stage of a class, told to move the use into the stage it is in)
                        yield call, {"buffer": hit[0], "use": hit[1], "cls": method[0], "stage": method[1],
                                     "_hint": "class"}
                    else:
                        yield call, {"buffer": hit[0], "use": hit[1]}


DOC = """\
## What it checks
A statement of the pipeline loop body outside every stage (before the first stage, after
the last one, or next to a stage in its section) takes a slot of, or passes to an op, a
cross-core buffer or a local buffer that shares addresses with one.

## Why it matters for pipelining
Cross-core `wait`/`set` wrap stage calls only, and each stage runs its own delayed
iteration. Loop-body statements run once per beat for the newest iteration, unsynchronised:
a slot picked there is handed to a stage `delay` iterations later, while the other core
may still be using it.

## Example
```python
for ki in pl.range(0, N):
    x = x_db.next()  # then st(ki, sub_id, out, x) in the vector section
```

## Use instead
```python
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    x = x_db.next()  # inside the stage
```
"""


RULE = Rule(
    code=codes.BUFFER_ACCESS_IN_LOOP_BODY,
    name="buffer-access-in-loop-body",
    title="The pipeline loop body touches a cross-core buffer outside the stages",
    message="`{use}` touches buffer `{buffer}` in the pipeline loop body outside any stage; "
            "cross-core sync cannot order it",
    hint="Move this use of `{buffer}` into the stage that produces or consumes it",
    hints={"class": "`{cls}.{stage}` is decorated `@pl.pipeline.stage` in class `{cls}`, where the tool does not "
                    "read stages: define it as a function at the module's top level and call it as `{stage}(...)`"},
    check=check,
    seed="the pipeline loop body must not pick or operate on cross-core buffers, or on local buffers sharing their "
         "addresses; do it inside a stage",
    doc=DOC,
)
