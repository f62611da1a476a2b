import libcst as cst

from pto_transpile import codes
from pto_transpile.read.consteval import PlSymbol
from pto_transpile.read.deadcode import dead_nodes
from pto_transpile.read.localnames import local_names
from pto_transpile.read.meaning import Unknown, Value
from pto_transpile.rules.rule import Rule


def check(ctx):
    file = ctx.file
    seen: set[cst.CSTNode] = set()
    for fn in [k.node for k in file.kernels] + [s.node for s in file.stages.values()] \
            + list(file.helpers.values()) + list(file.vector_functions.values()):
        if fn in seen or not isinstance(fn, cst.FunctionDef):
            continue  # a function kept as text (no rule reads it) is not judged
        seen.add(fn)
        local = local_names(file, fn)
        for call in file.find(fn, cst.Call):
            func = call.func
            if type(func) is not cst.Name or func.value in local or func in dead_nodes(file, fn):
                continue
            meaning = file.meaning(func.value)
            if isinstance(meaning, Value) and isinstance(meaning.value, PlSymbol):
                # `sv = pl.section_vector`: the transform and the check know `pl` calls by their name
                yield func, {"name": func.value, "function": fn.name.value, "pl_name": repr(meaning.value),
                             "what": f"is `{meaning.value!r}` under another name", "_hint": "pl_alias"}
            elif isinstance(meaning, Value):
                yield func, {"name": func.value, "function": fn.name.value,
                             "what": f"is bound to `{meaning.value!r}`, not a function"}
            elif isinstance(meaning, Unknown) and not meaning.imported:
                fields = {"name": func.value, "function": fn.name.value,
                          "what": f"cannot be known without running the file: {meaning.reason}"}
                if file.names.dynamic:  # every name is unknown: the fix is the namespace's use, not this name
                    fields.update(_hint="namespace", namespace=file.names.dynamic)
                elif meaning.fix:  # every function is unknown: the fix is the store that may reach any of them
                    fields.update(_hint="function_attribute", store=meaning.fix)
                elif (stacked := _under_pl_decorator(file, func.value)) is not None:
                    # (`@pl.pipeline.stage` over `@traced`: probe h242, told to add the decorator it had)
                    fields.update(_hint="stacked", decorator=stacked)
                elif meaning.made.startswith("its decorator"):  # (`VFN = pl.vector_function`, `@VFN`: probe h226)
                    fields.update(_hint="decorator")
                yield func, fields


def _under_pl_decorator(file, name: str) -> str | None:
    """The first other decorator of a top-level `def name` that `pl`'s own decorator (`@pl.pipeline.stage`,
    `@pl.vector_function`) stands over, or None: the `pl` decorator then receives what that one returns."""
    for stmt in file.source.module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name and len(stmt.decorators) > 1:
            if file.pl.path(stmt.decorators[0].decorator) in (("pipeline", "stage"), ("vector_function",)):
                return file.source.code(stmt.decorators[1].decorator)
    return None


DOC = """\
## What it checks
A kernel, stage, helper or vector function calls a module-level name that, once the
module has run, is not a function the analysis can follow: the module rebinds it to a
value, or binds it in a way that cannot be known without running the file (under an `if`
whose test is not a compile-time constant, in a loop or `try`, through `global` in a
function, `del`, ...). Kernels run after the module is imported, so a call means what the
name is bound to at the end of the module. Names imported from other modules are not
judged here.

## Why it matters for pipelining
The stages' reads and writes are found by following the functions they call. When the
function a name stands for depends on how the file runs, its tile accesses are unknown:
the syncs inserted for one candidate would not order the other's accesses.

## Example
```python
if os.environ.get("PTO_DEBUG"):
    store_half = store_half_logged   # which function `store_half` is depends on the run

@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    x = x_db.next()
    store_half(out, x, ki * TILE + sub_id * HALF)
```

## Use instead
```python
DEBUG = False                        # a compile-time constant: the branch is decided statically
if DEBUG:
    store_half = store_half_logged
```
"""


RULE = Rule(
    code=codes.CALLED_NAME_NOT_FUNCTION,
    name="called-name-not-function",
    title="A call names a module-level name that is not statically a function",
    message="`{function}` calls `{name}`, which at the end of the module {what}",
    hint="Bind `{name}` to one function at module level (unconditionally, or under a compile-time constant test)",
    hints={"pl_alias": "Call `{pl_name}` by its name: the transform and the check tell `pl` calls (sections, ops, "
                       "syncs) by the name they are written with",
           "function_attribute": "Set {store} through the function's own name, in a module-level statement "
                                 "(`f.__defaults__ = ...` where `f` is bound once, by its `def`), or not at all: a "
                                 "store through another expression (a list item, a call's result) may reach any "
                                 "function, `{name}` among them",
           "stacked": "Remove `@{decorator}` from `{name}`: `pl`'s decorator is read on the `def` it decorates "
                      "directly, and here it is given what `{decorator}` returns (do that work inside the function)",
           "decorator": "Decorate `{name}`'s `def` with `pl`'s decorator itself (`@pl.vector_function`, "
                        "`@pl.pipeline.stage`) or with a name imported for it (`from pypto_pro.language import "
                        "vector_function`), or with `@dataclass`: a decorator reached through a name the module "
                        "assigns is read as any other decorator, whose result is not known without running it",
           "namespace": "Keep data in objects of its own rather than reaching a namespace through `{namespace}` (an "
                        "object's `__dict__`, `globals()`, `sys.modules`): the check then reads every module name as "
                        "the module binds it"},
    phase="file",
    check=check,
    seed="a function called by a kernel, stage or helper is known statically, as the module binds it once it has run",
    doc=DOC,
)
