import libcst as cst

from pto_transpile import codes
from pto_transpile.read.partial import Verbatim
from pto_transpile.read.reader import section_of
from pto_transpile.read.walk import statements_of
from pto_transpile.rules.rule import Rule


def check(ctx):
    file = ctx.file
    plain = set(file.helpers) | {s.name for s in file.source.module.body
                                 if isinstance(s, Verbatim) and s.name not in file.stages}
    for kernel in file.kernels:
        # the loops that pipeline (or, when no function is a stage yet, every loop of a
        # kernel that asks for a pipeline): a plain kernel may call helpers in sections
        if kernel.loops:
            loops = [loop.node for loop in kernel.loops]
        else:
            loops = file.find(kernel.node, cst.For) if kernel.pipeline_keyword is not None else []
        for loop in loops:
            for with_node in statements_of(loop.body):
                section = section_of(with_node, file.pl) if isinstance(with_node, cst.With) else None
                if section is None:
                    continue
                calls = _bare_calls(statements_of(cst.ensure_type(with_node, cst.With).body))
                names = [c.func for c in calls if isinstance(c.func, cst.Name) and c.func.value in plain]
                if not calls or len(names) != len(calls):
                    continue
                for call, name in zip(calls, names, strict=True):
                    if _passes_a_group(call, kernel):  # a helper that only computes is a plain call
                        called = _called_decorator(file, name.value)
                        yield name, {"function": name.value, "section": f"pl.section_{section}()",
                                     **({"_message": "called", "_hint": "called"} if called else {})}


def _called_decorator(file, name: str) -> bool:
    """Is helper `name` decorated with `@pl.pipeline.stage(...)`, the decorator called?"""
    fn = file.helpers.get(name)
    return fn is not None and any(isinstance(d.decorator, cst.Call)
                                  and file.pl.path(d.decorator.func) == ("pipeline", "stage")
                                  for d in fn.decorators)


def _passes_a_group(call: cst.Call, kernel) -> bool:
    return any(isinstance(a.value, cst.Name) and a.value.value in kernel.buffers for a in call.args)


def _bare_calls(stmts) -> list[cst.Call]:
    """The calls of a block made only of call statements (empty when it holds anything else)."""
    calls = []
    for stmt in stmts:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return []
        for small in stmt.body:
            if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
                return []
            calls.append(small.value)
    return calls


DOC = """\
## What it checks
A plain function is called the way a stage is, on its own in a `pl.section_cube()` or
`pl.section_vector()` block of a pipeline loop (or of any loop of a kernel that sets
`pipeline=` and has no stage yet), and is handed a tile group, but is not decorated with
`@pl.pipeline.stage`.

## Why it matters for pipelining
Only decorated functions are stages: the transform schedules, delays and synchronises
stages and nothing else. An undecorated one would stay a plain statement of the loop body,
run for the newest iteration with no sync around it, so the buffers it touches would
race; the errors that follow from that (a buffer touched outside any stage, a loop with
nothing to pipeline) would not name the missing decorator. A file with this error is not
analysed further.

## Example
```python
def st(ki, sub_id, out, x_db):   # no decorator
    ...
```

## Use instead
```python
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    ...
```
"""

RULE = Rule(
    code=codes.STAGE_NOT_DECORATED,
    name="stage-not-decorated",
    title="A function called as a stage lacks `@pl.pipeline.stage`",
    message="`{function}` is called as a stage (alone in a `{section}` block of a loop) but is not decorated "
            "with `@pl.pipeline.stage`",
    hint="Decorate `{function}` with `@pl.pipeline.stage`",
    messages={"called": "`{function}` is called as a stage (alone in a `{section}` block of a loop) but is "
                        "decorated with `@pl.pipeline.stage()`, which calls the decorator with no function (Python "
                        "raises TypeError when the module runs)"},
    hints={"called": "Write the decorator without parentheses: `@pl.pipeline.stage`"},
    phase="file",
    check=check,
    seed="every function called as a stage of a pipeline loop is a `@pl.pipeline.stage` function",
    doc=DOC,
)
