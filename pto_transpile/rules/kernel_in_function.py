import re

import libcst as cst

from pto_transpile import codes
from pto_transpile.read.partial import Verbatim
from pto_transpile.rules.rule import Rule

_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+([^\W\d]\w*)", re.M)
#: the name a decorator line starts with (`@JIT`, `@JIT(...)`)
_DECORATOR = re.compile(r"^[ \t]*@[ \t]*([^\W\d]\w*)[ \t]*(?:\(|$|#)", re.M)


def check(ctx):
    yield from nested_kernels(ctx.file)


def nested_kernels(file):
    """(node to report at, fields) for each `@pl.jit` function defined inside a function, a
    class or a block of a module-level compound statement."""
    ref = file.pl.module_ref
    if ref is None:
        return
    jits = _jit_names(file)
    for stmt in file.source.module.body:
        yield from _jit_by_other_means(file, stmt, jits)
        if isinstance(stmt, Verbatim):  # a definition the analysis did not parse: its text
            if not stmt.is_class:
                for name in _nested_kernels_in_text(stmt.text, ref):
                    yield stmt, {"kernel": name, "where": f"defined inside `{stmt.name}`"}
        elif type(stmt) in (cst.FunctionDef, cst.ClassDef):
            for node in _kernels_in(file, stmt.body):
                yield node.name, {"kernel": node.name.value, "where": f"defined inside `{stmt.name.value}`"}
        elif type(stmt) in _BLOCKS:  # `if`, `try`, ...: what runs there is not read as the module's
            for node in _kernels_in(file, stmt):
                yield node.name, {"kernel": node.name.value, "where": f"defined inside {_BLOCKS[type(stmt)]}"}


#: module-level statements whose blocks define what only running them decides
_BLOCKS: dict[type, str] = {cst.If: "an `if` block", cst.Try: "a `try` block", cst.TryStar: "a `try` block",
           cst.With: "a `with` block", cst.For: "a `for` loop", cst.While: "a `while` loop", cst.Match: "a `match`"}


def _kernels_in(file, node: cst.CSTNode) -> list[cst.FunctionDef]:
    return [fn for fn in file.find(node, cst.FunctionDef)
            if fn.decorators and any(file.pl.path(_called(d.decorator)) == ("jit",) for d in fn.decorators)]


def _is_jit(file, node: cst.BaseExpression, jits: set[str]) -> bool:
    """`pl.jit`, `pl.jit(...)`, or a module name bound to either."""
    called = _called(node)
    return file.pl.path(called) == ("jit",) or type(called) is cst.Name and called.value in jits


def _jit_names(file) -> set[str]:
    """Module names bound to `pl.jit` or `pl.jit(...)` (`jit = pl.jit`, `JIT = pl.jit(auto_mutex=True)`)."""
    names: set[str] = set()
    for stmt in file.source.module.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and _is_jit(file, small.value, names):
                names |= {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
    return names


def _jit_by_other_means(file, stmt: cst.CSTNode, jits: set[str]):
    """A kernel made by calling `pl.jit` (`k = pl.jit(auto_mutex=True)(fn)`), or decorated with
    a name bound to it: the analysis reads only `@pl.jit` written on a module-level `def`."""
    if type(stmt) is cst.FunctionDef:
        for d in stmt.decorators:
            called = _called(d.decorator)
            if isinstance(called, cst.Name) and called.value in jits:
                yield stmt.name, {"kernel": stmt.name.value, "name": called.value, "_hint": "alias",
                                  "where": f"decorated with `{called.value}`, a name for `pl.jit`"}
    elif isinstance(stmt, Verbatim) and not stmt.is_class:
        # a `def` no analysis parsed (its decorators name no `pl` root): its decorator lines
        header = _DEF.search(stmt.text)
        for name in _DECORATOR.findall(stmt.text[:header.start()] if header is not None else ""):
            if name in jits:
                yield stmt, {"kernel": stmt.name, "name": name, "_hint": "alias",
                             "where": f"decorated with `{name}`, a name for `pl.jit`"}
    for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
        value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
        # `pl.jit(...)(fn)` or `pl.jit(fn)` makes a kernel; `JIT = pl.jit(...)` only a decorator
        if type(value) is cst.Call and _is_jit(file, value.func, jits) and (
                isinstance(value.func, cst.Call) or any(a.keyword is None for a in value.args)):
            names = [t.target.value for t in getattr(small, "targets", ()) if isinstance(t.target, cst.Name)]
            yield value, {"kernel": names[0] if names else file.source.code(value),
                          "where": "made by calling `pl.jit`"}


def _called(decorator: cst.BaseExpression) -> cst.BaseExpression:
    return decorator.func if type(decorator) is cst.Call else decorator


def _nested_kernels_in_text(text: str, ref: str) -> list[str]:
    """The names of the `def`s an indented `@<pl>.jit` decorates in a definition's text."""
    jit = re.compile(rf"^[ \t]+@[ \t]*{re.escape(ref)}[ \t]*\.[ \t]*jit\b", re.M)
    names = []
    for m in jit.finditer(text):
        found = _DEF.search(text, m.end())
        if found:
            names.append(found.group(1))
    return names


DOC = """\
## What it checks
A `@pl.jit` kernel is defined inside another function (a kernel factory: `def
build_kernel(preload): ... @pl.jit(...) def kernel(...): ... return kernel`), a class, or a
block of a module-level `if`, `try`, `with`, loop or `match`; or it is made by calling
`pl.jit` (`kernel = pl.jit(auto_mutex=True)(fn)`) or decorated with a name bound to it
(`jit = pl.jit`, then `@jit`).

## Why it matters for pipelining
pto-transpile reads the file without running it, so it knows the kernels the module binds
when it is imported: those defined at module level. A kernel made when a factory runs
depends on the factory's arguments, which only exist at run time; it would be left as it
is, unchecked and not pipelined, while the tool reported success. The error says so
instead.

## Example
```python
def build_kernel(preload):
    @pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=preload))
    def kernel(x: pl.Tensor[[16, 16], pl.DT_FP32]):
        ...
    return kernel
```

## Use instead
```python
PRELOAD = 1


@pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=PRELOAD))
def kernel(x: pl.Tensor[[16, 16], pl.DT_FP32]):
    ...
```
"""


RULE = Rule(
    code=codes.KERNEL_IN_FUNCTION,
    name="kernel-in-function",
    title="A kernel is defined where pto-transpile does not read it",
    message="kernel `{kernel}` is {where}: pto-transpile reads the kernels a module defines at its top level "
            "with `@pl.jit`, so this one is neither checked nor pipelined",
    hint="Define the kernel at module level; make what the factory chooses module constants or tiling-key fields",
    hints={"alias": "Decorate the kernel with `@pl.jit(...)` itself, written out with the arguments `{name}` is "
                    "given: the transform reads and rewrites the kernel's own decorator"},
    phase="file",
    check=check,
    seed="the kernel is a `@pl.jit` function the module defines",
    doc=DOC,
)
