import libcst as cst

from pto_transpile import codes
from pto_transpile.read.model import TENSOR
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
                if not problem:
                    problem = _handle_swapped(ctx.file, kernel, stage.node, s.call)
                if problem:
                    yield s.call, {"stage": s.func, "problem": problem}


#: methods that take a tile of a tile group
_PICKS = frozenset({"next", "current", "previous"})
#: `pl` ops and the position of their GM tensor
_GM_AT = {"load": 1, "store": 0}


def _handle_swapped(file, kernel, fn: cst.FunctionDef, call: cst.Call) -> str:
    """A kernel tensor given to a parameter the stage takes tiles of (`x_db.next()`), or a kernel
    tile group given to one it loads from or stores into as GM: the arguments swapped at the
    call (first-hour study ux1: PTO052 inside the stage, "its tiles do not resolve"); "" if none."""
    params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)]
    given = {params[i]: a.value for i, a in enumerate(a for a in call.args if a.keyword is None) if i < len(params)}
    given.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
    picked, as_gm = set(), set()
    for node in file.find(fn.body, cst.Call):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in _PICKS \
                and isinstance(node.func.value, cst.Name):
            picked.add(node.func.value.value)
        path = file.pl.path(node.func)
        at = _GM_AT.get(path[0]) if path and len(path) == 1 else None
        positional = [a.value for a in node.args if a.keyword is None]
        if at is not None and at < len(positional) and isinstance(positional[at], cst.Name):
            as_gm.add(positional[at].value)
    for param, value in given.items():
        if not isinstance(value, cst.Name):
            continue
        kind = kernel.kinds.get(value.value)
        if param in picked and kind == TENSOR:
            return (f"parameter `{param}` is given `{value.value}`, a GM tensor, and the stage takes a tile of it "
                    f"(`{param}.next()`): are two arguments swapped?")
        if param in as_gm and value.value in kernel.buffers:
            return (f"parameter `{param}` is given `{value.value}`, a tile group, and the stage loads or stores it as "
                    "a GM tensor: are two arguments swapped?")
    return ""


DOC = """\
## What it checks
A stage is called in a pipeline loop with arguments its `def` cannot take: more positional
arguments than it has parameters, a keyword it has no parameter for, a value given twice,
or a parameter given none. Python raises `TypeError` at that call. Also two arguments
swapped: a GM tensor of the kernel given to a parameter the stage takes tiles of
(`x_db.next()`), or a tile group given to one it loads from or stores into as GM.

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
