import libcst as cst

from pto_transpile import codes
from pto_transpile.read.walk import loop_exits
from pto_transpile.rules.rule import Rule

_EXITS: dict[type, str] = {cst.Break: "break", cst.Continue: "continue", cst.Return: "return"}


def check(ctx):
    for loop in ctx.kernel.loops:
        for node in loop_exits(loop.body, _EXITS):
            yield node, {"what": _EXITS[type(node)], "where": "the pipeline loop body"}
        if loop.nested:
            outer_only = [s for s in loop.outer.body.body if s is not loop.node]
            for node in loop_exits(outer_only, {cst.Return}):
                if not any(node is n for n in loop_exits(loop.body, _EXITS)):
                    yield node, {"what": "return", "where": "a loop around the pipeline loop"}


DOC = """\
## What it checks
A `break`, `continue` or `return` in the pipeline loop body (outside the stages), or a
`return` in a loop around it.

## Why it matters for pipelining
After the transform, one iteration of the loop is one beat: it runs the newest task's
first stage and the delayed stages of earlier tasks, then advances the task counter. A
`continue` or `break` would skip the delayed stages of other tasks and the counter, and a
`return` would skip the drain beats and the final waits, leaving tasks unfinished and
cross-core flags unbalanced. (`continue`/`break` in an outer loop are fine: the ring and the
counter run across outer iterations and the drain follows the outermost loop.)

## Example
```python
for ki in pl.range(0, N):
    if ki >= n_valid:
        break
    with pl.section_cube():
        mm(...)
```

## Use instead
```python
for ki in pl.range(0, n_valid):
    with pl.section_cube():
        mm(...)
```
"""


RULE = Rule(
    code=codes.LOOP_EXIT_IN_PIPELINE,
    name="loop-exit-in-pipeline",
    title="`break`, `continue` or `return` would cut the pipelined loop short",
    message="`{what}` in {where}: after pipelining it would skip other tasks' delayed "
            "stages, the task counter or the drain",
    hint="Express the condition in the loop bounds, or move it into the stage that depends on it",
    check=check,
    seed="each beat of the pipelined loop runs to its end; break, continue and return would cut it short",
    doc=DOC,
)
