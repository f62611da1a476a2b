from pto_transpile import codes
from pto_transpile.rules.rule import Rule


def check(ctx):
    for node, _section in ctx.kernel.dynamic_stage_ifs:
        if node in ctx.kernel.key_stage_ifs:
            yield node.test, {"cond": ctx.source.code(node.test), "_hint": "key",
                              "what": "is a tiling-key test inside the pipeline loop: each instance would "
                                      "pipeline other stages, and one generated file serves every instance"}
        else:
            yield node.test, {"cond": ctx.source.code(node.test), "what": "is not a compile-time constant"}


DOC = """\
## What it checks
An `if` around a stage call must have a condition that folds to a compile-time constant
(literals, module-level constants and arithmetic on them); constant branches are folded
away first. Runtime conditions (the loop variable, `pl.get_subblock_idx()`) are rejected.
A test on tiling-key fields (`if HasAtten == 1:`) is constant in each instance the JIT
compiles, but the generated file serves every instance: such a test may choose between
whole pipeline loops (each branch holding its own loop, kept as written), not between
stages of one pipeline loop. A run-time test outside every pipeline loop whose branches hold
whole loops (every stage call under it is in a loop under it: `if flag > 0:` around an
optional pass) decides whether every stage of those loops runs or none; it is transpiled, the
fill and the drain inside the branch, and the soundness check follows the test as any other
(a test that sends the cores of one block different ways is a deadlock it refuses).

## Why it matters for pipelining
The pipelined loop runs stage `s` of iteration `i - delay(s)` in beat `i`, and every
cross-core handover is a fixed set/wait pair per iteration. If a runtime condition may
skip the producer, the consumer's `wait` has no matching `set` (a hang), or an extra
`set` is left over after the drain.

## Example
```python
    if ki > 0:  # runtime: depends on the loop variable
        with pl.section_cube():
            mm(ki, a, a_l1, left_db, right_db, acc_db, x_db)
```

## Use instead
```python
    if STORE:  # STORE = True at module level: folded at compile time
        with pl.section_vector():
            st(ki, sub_id, out, x_db)
```
(or move the runtime `if` inside the stage body, around the ops it guards).
"""


RULE = Rule(
    code=codes.DYNAMIC_BRANCH_AROUND_STAGE,
    name="dynamic-branch-around-stage",
    title="A runtime `if` decides whether a stage runs",
    message="branch condition `{cond}` wraps a stage call but {what}",
    hint="Make the condition a module-level constant, or move the `if` inside the stage body",
    hints={"key": "Put the `if` around the whole pipeline loop (one loop per branch), or inside the stage body"},
    check=check,
    seed="an `if` may choose whether a stage runs only when its condition is a compile-time constant",
    doc=DOC,
)
