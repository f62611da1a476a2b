import libcst as cst

from pto_transpile import codes
from pto_transpile.read.meaning import Unknown
from pto_transpile.read.reader import section_of
from pto_transpile.read.walk import find
from pto_transpile.rules._walk import stage_methods, tries_around_stage_calls
from pto_transpile.rules.rule import Rule


def check(ctx):
    k = ctx.kernel
    if k.loops:
        return
    forgotten = _plain_calls_in_sections(ctx)
    if forgotten:
        names = ", ".join(f"`{n}`" for n in forgotten)
        yield k.node.name, {"detail": f"a loop calls {names} in section blocks, but they are not stages",
                            "names": names, "_hint": "forgotten"}
    elif (held := _sections_in_helpers(ctx)) is not None:
        helper, line = held
        yield k.node.name, {"detail": f"the loop at line {line} calls `{helper}`, whose body holds the section blocks "
                                      "and the stage calls, where the transform does not look",
                            "helper": helper, "line": line, "_hint": "helper"}
    elif tries := tries_around_stage_calls(ctx):
        line, loop = min(tries.values())
        yield k.node.name, {"detail": f"the loop at line {loop} calls its stages inside the `try` at line {line}, "
                                      "where the transform does not look", "line": line, "loop": loop, "_hint": "try"}
    elif not ctx.file.stages:
        if _decorated_stages(ctx):
            return  # stages the file's names hide (`globals()`, a `__defaults__` store): PTO070 names what hides them
        aliases = _stage_aliases(ctx.file)
        decorated = sorted({d.decorator.value for fn in ctx.file.source.module.body
                            if isinstance(fn, cst.FunctionDef) for d in fn.decorators
                            if isinstance(d.decorator, cst.Name) and d.decorator.value in aliases})
        if decorated:  # (probe h131: the help asked for a loop the kernel has)
            yield k.node.name, {"detail": f"its stages are decorated with `{decorated[0]}`, a name for "
                                          "`pl.pipeline.stage`, which the tool does not follow",
                                "name": decorated[0], "_hint": "alias"}
            return
        methods = stage_methods(ctx.file)
        if methods:  # (probe h242: told to call stages the loop already called, as `Stages.project(...)`)
            yield k.node.name, {"detail": f"its stages are functions of class `{methods[0][0]}` (`{methods[0][0]}."
                                          f"{methods[0][1]}`), which the tool does not read as stages",
                                "cls": methods[0][0], "_hint": "class"}
            return
        yield k.node.name, {"detail": "the file has no `@pl.pipeline.stage` functions"}
    else:
        yield k.node.name, {"detail": "no `for` loop calls a stage inside `with "
                                      "pl.section_cube()/section_vector()` blocks"}


def _stage_aliases(file) -> set[str]:
    """Module names bound to `pl.pipeline.stage` (`stage = pl.pipeline.stage`)."""
    return {t.target.value for stmt in file.source.module.body if isinstance(stmt, cst.SimpleStatementLine)
            for small in stmt.body
            if isinstance(small, cst.Assign) and file.pl.path(small.value) == ("pipeline", "stage")
            for t in small.targets if isinstance(t.target, cst.Name)}


def _decorated_stages(ctx) -> bool:
    """Does a module-level function carry a decorator written `...pipeline.stage` whose name
    cannot be known without running the file (it rebinds its module names at run time through
    `globals()`, or sets `__defaults__` of some object)? That hides the stages from the reading
    of its names, and PTO070 names what hides them where the kernel calls them."""
    return any(
        isinstance(d.decorator, cst.Attribute) and d.decorator.attr.value == "stage"
        and isinstance(d.decorator.value, cst.Attribute) and d.decorator.value.attr.value == "pipeline"
        and isinstance(ctx.file.meaning(stmt.name.value), Unknown)
        for stmt in ctx.file.source.module.body if isinstance(stmt, cst.FunctionDef) for d in stmt.decorators)


def _sections_in_helpers(ctx) -> tuple[str, int] | None:
    """(a function of the file a `for` loop of the kernel calls whose own body holds a
    `with pl.section_*()` block calling a stage, the loop's line): the loop's body factored
    into a helper (study ux2: "nothing to pipeline", said of a loop that called the stages
    through it)."""
    file = ctx.file
    for loop in find(ctx.kernel.node.body, cst.For):
        for call in find(loop.body, cst.Call):
            name = call.func.value if isinstance(call.func, cst.Name) else ""
            helper = file.helpers.get(name)
            if not isinstance(helper, cst.FunctionDef):
                continue
            for block in find(helper.body, cst.With):
                if section_of(block, file.pl) and any(isinstance(c.func, cst.Name) and c.func.value in file.stages
                                                      for c in find(block.body, cst.Call)):
                    return name, file.source.span(loop).start.line
    return None


def _plain_calls_in_sections(ctx) -> list[str]:
    """Module functions a `for` loop of the kernel calls as the only statement of a section:
    where a stage call belongs, so most likely a stage whose decorator was forgotten."""
    found: list[str] = []
    for loop in find(ctx.kernel.node.body, cst.For):
        for stmt in loop.body.body:
            if isinstance(stmt, cst.With) and section_of(stmt, ctx.file.pl) and len(stmt.body.body) == 1:
                line = stmt.body.body[0]
                call = line.body[0].value if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 \
                    and isinstance(line.body[0], cst.Expr) else None
                if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) \
                        and call.func.value in ctx.file.helpers and call.func.value not in found:
                    found.append(call.func.value)
    return found


DOC = """\
## What it checks
A kernel sets `pipeline=pl.pipeline.PipelineConfig(...)`, but no `for` loop of it calls a
`@pl.pipeline.stage` function inside `with pl.section_cube()` / `with pl.section_vector()`
blocks: either the file has no stage functions at all (the decorator was forgotten), or
the stages are never called from such a loop (for example from a `while` loop).

## Why it matters for pipelining
The transform only knows what to overlap from the stage calls of a `for ... in pl.range()`
loop: it delays the downstream core's stages by whole iterations and keeps each
iteration's arguments in a ring of ctx slots. With no such loop the `pipeline=` setting
would silently do nothing.

## Example
```python
def mm(ki, a, a_l1, left_db, right_db, acc_db, x_db):  # no @pl.pipeline.stage
    ...
```

## Use instead
```python
@pl.pipeline.stage
def mm(ki, a, a_l1, left_db, right_db, acc_db, x_db):
    ...
```
"""


RULE = Rule(
    code=codes.NO_PIPELINE_LOOP,
    name="no-pipeline-loop",
    title="A pipeline kernel has no pipeline loop",
    message="kernel has `pipeline=` but nothing to pipeline: {detail}",
    hint="Call each `@pl.pipeline.stage` function from a `for ... in pl.range(...)` loop, one "
         "per `with pl.section_*()` block",
    hints={"forgotten": "Decorate {names} with `@pl.pipeline.stage`",
           "class": "Define each stage as a function at the module's top level and call it by its name "
                    "(`project(...)` for `{cls}.project(...)`): the transform reads stages there",
           "alias": "Decorate each stage with `@pl.pipeline.stage` itself, as the transform reads it, not through "
                    "`{name}`",
           "try": "Write the section blocks directly in the body of the loop at line {loop} and drop the `try` at "
                  "line {line}: the transform pipelines the sections a loop's body holds itself, and a kernel raises "
                  "nothing to catch",
           "helper": "Write the body of `{helper}` in the loop at line {line}: the transform pipelines the loop whose "
                     "own body calls the stages in section blocks"},
    check=check,
    seed="a kernel with `pipeline=` calls its stages from a `for` loop, one per section block",
    doc=DOC,
)
