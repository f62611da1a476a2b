import re

import libcst as cst

from pto_transpile import codes
from pto_transpile.read.partial import Verbatim
from pto_transpile.rules.rule import Rule

_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+([^\W\d]\w*)", re.M)


def check(ctx):
    yield from nested_kernels(ctx.file)


def nested_kernels(file):
    """(node to report at, fields) for each `@pl.jit` function defined inside a function, a
    class or a block of a module-level compound statement."""
    ref = file.pl.module_ref
    if ref is None:
        return
    for stmt in file.source.module.body:
        if isinstance(stmt, Verbatim):  # a definition the analysis did not parse: its text
            if not stmt.is_class:
                for name in _nested_kernels_in_text(stmt.text, ref):
                    yield stmt, {"kernel": name, "function": f"`{stmt.name}`"}
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            for node in _kernels_in(file, stmt.body):
                yield node.name, {"kernel": node.name.value, "function": f"`{stmt.name.value}`"}
        elif type(stmt) in _BLOCKS:  # `if`, `try`, ...: what runs there is not read as the module's
            for node in _kernels_in(file, stmt):
                yield node.name, {"kernel": node.name.value, "function": _BLOCKS[type(stmt)]}


#: module-level statements whose blocks define what only running them decides
_BLOCKS: dict[type, str] = {cst.If: "an `if` block", cst.Try: "a `try` block", cst.TryStar: "a `try` block",
           cst.With: "a `with` block", cst.For: "a `for` loop", cst.While: "a `while` loop", cst.Match: "a `match`"}


def _kernels_in(file, node: cst.CSTNode) -> list[cst.FunctionDef]:
    return [fn for fn in file.find(node, cst.FunctionDef)
            if fn.decorators and any(file.pl.path(_called(d.decorator)) == ("jit",) for d in fn.decorators)]


def _called(decorator: cst.BaseExpression) -> cst.BaseExpression:
    return decorator.func if isinstance(decorator, cst.Call) else decorator


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
block of a module-level `if`, `try`, `with`, loop or `match`.

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

INVALID = (
    "import pypto_pro.language as pl\n\n\n"
    "def build_kernel(preload):\n"
    "    @pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=preload))\n"
    "    def kernel(x: pl.Tensor[[16, 16], pl.DT_FP32]):  # E: PTO079\n"
    "        pass\n\n"
    "    return kernel\n",
    "import pypto_pro.language as pl\n\n"
    "if True:\n"
    "    @pl.jit\n"
    "    def kernel(x: pl.Tensor[[16, 16], pl.DT_FP32]):  # E: PTO079\n"
    "        pass\n",
)

VALID = (
    "import pypto_pro.language as pl\n\n"
    "PRELOAD = 1\n\n\n"
    "@pl.jit\n"
    "def kernel(x: pl.Tensor[[16, 16], pl.DT_FP32]):\n"
    "    pass\n",
)


RULE = Rule(
    code=codes.KERNEL_IN_FUNCTION,
    name="kernel-in-function",
    title="A kernel is defined inside a function",
    message="kernel `{kernel}` is defined inside {function}: pto-transpile reads the kernels a module defines "
            "at its top level, so this one is neither checked nor pipelined",
    hint="Define the kernel at module level; make what the factory chooses module constants or tiling-key fields",
    phase="file",
    check=check,
    seed="the kernel is a `@pl.jit` function the module defines",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)
