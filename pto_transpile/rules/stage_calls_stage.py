import libcst as cst

from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def _reach(file, fn, path, seen):
    """Yield (call, via) for every stage call reachable from `fn` through plain helpers."""
    for call in file.find(fn.body, cst.Call):
        if type(call.func) is not cst.Name:
            continue
        name = call.func.value
        if name in file.stages:
            yield call, name, path
        elif name in file.helpers and name not in seen:
            yield from _reach(file, file.helpers[name], path + [name], seen | {name})


def check(ctx):
    file = ctx.file
    for stage in file.stages.values():
        for call, target, via in _reach(file, stage.node, [], {stage.name}):
            yield call, {"stage": stage.name, "target": target,
                         "via": f" via {' -> '.join(via)}" if via else ""}


DOC = """\
## What it checks
A `@pl.pipeline.stage` function calls another stage function, directly or through plain
helper functions.

## Why it matters for pipelining
Each stage is scheduled on its own: it gets a core, a delay, a ctx slot, and cross-core
`wait`s before and `set`s after its call in the loop. A stage nested inside another one
would run on the outer stage's core and iteration, with none of its own syncs, so its
handovers to the other core would be unsynchronised.

## Example
```python
@pl.pipeline.stage
def mm(ki, a, a_l1, left_db, right_db, acc_db, x_db):
    load_a(ki, a, a_l1)  # load_a is a @pl.pipeline.stage too
```

## Use instead
```python
def load_a(ki, a, a_l1):  # a plain helper, not a stage
    ...
```
"""


RULE = Rule(
    code=codes.STAGE_CALLS_STAGE,
    name="stage-calls-stage",
    title="A stage calls another stage",
    message="stage `{stage}` calls stage `{target}`{via}; a stage may not contain another stage",
    hint="Call `{target}` from the pipeline loop in its own section block, or make it a plain helper function",
    phase="file",
    check=check,
    seed="a stage must not call another stage",
    doc=DOC,
)
