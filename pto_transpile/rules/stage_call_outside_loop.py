from pto_transpile import codes
from pto_transpile.rules._walk import tries_around_stage_calls
from pto_transpile.rules.rule import Rule


def check(ctx):
    tries = tries_around_stage_calls(ctx)
    for name, call in ctx.kernel.stray_stage_calls:
        if call in tries:
            line, loop = tries[call]
            yield call, {"stage": name, "where": f"inside the `try` at line {line}, not a pipeline loop's own body",
                         "line": line, "loop": loop, "_hint": "try"}
        else:
            yield call, {"stage": name, "where": "outside a pipeline loop"}


DOC = """\
## What it checks
A `@pl.pipeline.stage` function is called outside every pipeline loop: before or after the
loop (e.g. a last "flush" call), or in a loop the transform does not pipeline (`while`).

## Why it matters for pipelining
The transform only synchronises stage calls of pipeline loops: each gets a delay, a ctx
slot and cross-core `wait`/`set` around it, and the drain after the loop finishes the
iterations the delayed stages still owe. A stray call runs with none of these; it would
advance the cross-core buffer's tile cursor once more and read a tile no producer `set`
was issued for, desynchronising every later handover.

## Example
```python
    for ki in pl.range(0, N):
        ...
    with pl.section_vector():
        st(N, sub_id, out, x_db)  # one more store after the loop
```

## Use instead
```python
    for ki in pl.range(0, N + 1):  # let the loop (and its drain) do every iteration
        ...
```
"""


RULE = Rule(
    code=codes.STAGE_CALL_OUTSIDE_LOOP,
    name="stage-call-outside-loop",
    title="A stage is called outside any pipeline loop",
    message="stage `{stage}` is called {where}",
    hint="Call stages only from the pipeline `for` loop, each in its own section block; for work done once "
         "(an epilogue after the loop), call a plain function: drop `@pl.pipeline.stage` from `{stage}`, or give "
         "that work a function of its own",
    hints={"try": "Write the section blocks directly in the body of the loop at line {loop}: the transform "
                  "pipelines the sections a loop's body holds itself, and a kernel raises nothing to catch, so drop "
                  "the `try` at line {line}"},
    check=check,
    seed="the stage calls of one pipeline sit in one `for` loop",
    doc=DOC,
)
