import libcst as cst

from pto_transpile import codes
from pto_transpile.read.kinds import names_in
from pto_transpile.rules.rule import Rule


def check(ctx):
    for loop in ctx.kernel.loops:
        step = loop.step
        if step is None:
            continue
        text = ctx.source.code(step)
        if isinstance(step, cst.UnaryOperation) and isinstance(step.operator, cst.Minus):
            yield step, {"step": text, "detail": "steps backwards"}
            continue
        value = None if set(names_in(step)) & ctx.kernel.kinds.keys() else ctx.file.evaluator.try_eval(step)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0:
            yield step, {"step": text, "detail": f"has step {value}"}


DOC = """\
## What it checks
The step of the pipeline loop's `pl.range(start, end, step)` is negative (written as
`-x`, or a constant folding to a negative value) or zero.

## Why it matters for pipelining
The pipelined loop runs downstream stages `delay` iterations behind upstream ones and
appends drain beats after the end bound; the task counter and the validity guards assume
iterations move forward. A reversed loop would hand tiles to iterations that have already
run, and a zero step never ends.

## Example
```python
for ki in pl.range(N - 1, -1, -1):
    ...
```

## Use instead
```python
for ki in pl.range(0, N):
    ...  # and index with N - 1 - ki inside the stages
```
"""


RULE = Rule(
    code=codes.LOOP_STEP_NOT_POSITIVE,
    name="loop-step-not-positive",
    title="The pipeline loop runs backwards or does not advance",
    message="the pipeline loop {detail} (`{step}`); only forward iteration with a positive step is supported",
    hint="Iterate forwards with a positive step and compute the reversed index inside the stages, e.g. `N - 1 - i` "
         "with `N` static (the proof follows a GM offset computed from a run-time trip count for no count but its "
         "own: with `n` known only at run time, keep the forward order)",
    check=check,
    seed="the pipeline loop's step is positive: no reverse iteration",
    doc=DOC,
)
