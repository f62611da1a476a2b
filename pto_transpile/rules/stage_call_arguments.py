from pto_transpile import codes
from pto_transpile.read.signature import binding_problem
from pto_transpile.rules.rule import Rule


def check(ctx):
    for kernel in ctx.file.kernels:
        for loop in kernel.loops:
            for s in loop.stages:
                stage = ctx.file.stages.get(s.func)
                if stage is None or any(a.star for a in s.call.args):  # (a starred argument: PTO080)
                    continue
                positional = sum(1 for a in s.call.args if a.keyword is None)
                problem = binding_problem(stage.node, positional,
                                          [a.keyword.value for a in s.call.args if a.keyword is not None])
                if problem:
                    yield s.call, {"stage": s.func, "problem": problem}


DOC = """\
## What it checks
A stage is called in a pipeline loop with arguments its `def` cannot take: more positional
arguments than it has parameters, a keyword it has no parameter for, a value given twice,
or a parameter given none. Python raises `TypeError` at that call.

## Why it matters for pipelining
Which parameter each argument binds decides the producer and consumer of every cross-core
buffer and what travels with a task in the ctx ring. A call that binds no way gives the
later rules a wrong picture (a buffer seems used by one stage only), and a kernel written
from it fails at its first call on the device. A parameter added to a stage and forgotten at
its call is the common cause.

## Example
```python
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    ...

            st(ki, sub_id, out)
```

## Use instead
```python
            st(ki, sub_id, out, x_db)
```
"""


RULE = Rule(
    code=codes.STAGE_CALL_ARGUMENTS,
    name="stage-call-arguments",
    title="A stage is called with arguments its def cannot take",
    message="stage `{stage}` is called with arguments its `def` cannot take: {problem}",
    hint="Give the call the stage's parameters, each once, by position in their order or by their names",
    phase="file",
    check=check,
    seed="each stage argument binds one parameter of the stage, as Python binds it",
    doc=DOC,
)
