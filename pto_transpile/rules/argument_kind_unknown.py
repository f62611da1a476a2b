from pto_transpile import codes
from pto_transpile.rules.rule import Rule

DOC = """\
## What it checks
A stage argument's kind cannot be decided statically: it is bound from a call the tool
does not know (a function imported from another module, a non-`pl` call), so it is not
clear whether it is a per-iteration scalar or a handle (tensor, tile group, struct). A
function of the file is read: its return annotation (`-> int`), else what its `return`s
give from the kinds of the arguments of the call (`offset(ki, sub_id)` of `return ki *
TILE + sub_id * HALF` is a scalar). When the name is computed from a parameter whose
annotation the tool does not read (`tiling: "TD"`, `tiling: TD | None`, no annotation), or
from an item of a tuple of numbers picked by a value of the run (`(0, 0, 1)[d]`, an int the
check cannot follow for every `d`), the message names that instead.

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


RULE = Rule(
    code=codes.ARGUMENT_KIND_UNKNOWN,
    name="argument-kind-unknown",
    title="Whether a stage argument must travel with its task cannot be decided",
    message="cannot tell whether `{names}` (passed to stage `{stage}`) is a scalar or a handle, so whether "
            "it must travel in the ctx ring",
    hint="Bind `{names}` from a `pl` call, a literal, an annotated parameter or arithmetic of those "
         "(`sub_id * HALF`), or annotate it where it is bound with the dtype it has (`{names}: pl.DT_FP32 = ...`, "
         "or `pl.DT_INT32` for an integer), which types the ctx field that carries it",
    messages={
        "parameter": "cannot tell whether `{name}` (passed to stage `{stage}`) is a scalar or a handle, so whether "
                     "it must travel in the ctx ring: it is computed from parameter `{param}`, which {said}",
        "item": "`{name}` (passed to stage `{stage}`) is an item of a tuple of numbers picked by a value of the run "
                "(`{pick}`): the check does not follow which item such a pick gives, so it cannot prove the kernel "
                "for every value of `{index}`",
        "handle": "`{name}` (passed to stage `{stage}`) is a tile or tensor picked by a value of the run "
                  "(`{pick}`): a handle, which no ctx field carries to a delayed stage under a name of its own",
        "helper": "cannot tell whether `{name}` (passed to stage `{stage}`) is a scalar or a handle, so whether "
                  "it must travel in the ctx ring: it is bound from `{call}`, a call of the file's function "
                  "`{function}`, whose result the tool does not read",
        "container": "`{name}` (passed to stage `{stage}`) is a {container} (`{value}`), which no ctx field carries "
                     "to a delayed stage",
    },
    hints={
        "parameter": "Annotate `{param}` with what it holds, written as the class or type itself: {write}",
        "item": "Compute `{name}` from `{index}` with arithmetic or tests ({example}), which the check follows for "
                "every value",
        "handle": "Pass the pick itself in the stage call (`{pick}` as the argument): the pipelined kernel picks it "
                  "again for each task, computing `{index}` from that task's values",
        "helper": "Make it in the kernel itself, calling {made} there as `{function}` does: a tile group, a tile "
                  "or a tensor is read where the kernel's own `pl` call makes it",
        "helper_value": "Annotate `{name}` where it is bound with the dtype it has (`{name}: pl.DT_FP32 = {call}`, or "
                        "`pl.DT_INT32` for an integer) when it is a number; a tile group, a tile or a tensor is read "
                        "where the kernel's own `pl` call makes it",
        "container": "Bind the number the stage reads from `{name}` to a name of its own in the loop body, outside "
                     "the sections, annotated with its dtype (`x: pl.DT_FP32 = {name}[i]`, with the index or key the "
                     "stage reads), and pass that name in its place: a number travels in a ctx field of its own, "
                     "a {container} in none",
    },
    phase="analysis",
    seed="where a value's kind (scalar or handle) cannot be decided statically, say so rather than guess",
    doc=DOC,
    raised_by=("pto_transpile/sync/ctxring.py",),
)
