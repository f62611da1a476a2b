from __future__ import annotations

import builtins

import libcst as cst

from pto_transpile.rules import _examples as ex
from pto_transpile.rules.base import Rule
from pto_transpile.walk import iter_nodes

_BUILTINS = frozenset(dir(builtins))


def check(file):
    module_names = _module_bound(file.source.module)
    if module_names is None:
        return  # a star import binds names nobody can list
    functions = list(file.stages.values())
    seen: set[int] = set()
    vfs = {id(f) for f in file.vector_functions.values()}
    for fn in [s.node for s in functions] + list(file.vector_functions.values()) + list(file.helpers.values()) \
            + [k.node for k in file.kernels]:
        if id(fn) in seen or not isinstance(fn, cst.FunctionDef):
            continue  # a function kept as text (no rule reads it) is not judged
        seen.add(id(fn))
        # `vf` (the register API, `pl.Vf`) is reserved inside vector functions: it needs no import there
        bound = module_names | _bound_in(fn) | ({"vf"} if id(fn) in vfs else set())
        reported = set()
        for name in _reads(fn):
            if name.value not in bound and name.value not in _BUILTINS and name.value not in reported:
                reported.add(name.value)
                yield name, {"name": name.value, "function": fn.name.value}


def _module_bound(module: cst.Module) -> set[str] | None:
    names: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names.add(stmt.name.value)
        elif not isinstance(stmt, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            names.add(getattr(stmt, "name", ""))  # a definition kept as its text
            continue
        for node in iter_nodes(stmt) if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else ():
            if isinstance(node, cst.ImportStar):
                return None
        if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names |= _stored(stmt)
    return names


def _bound_in(fn: cst.FunctionDef) -> set[str]:
    """Names a function (or a function or lambda nested in it) binds: parameters, targets,
    imports, nested definitions, comprehension targets, `global`/`nonlocal` names."""
    names = _stored(fn.body)
    for node in iter_nodes(fn):
        if isinstance(node, cst.Param):
            names.add(node.name.value)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not fn:
            names.add(node.name.value)
    return names


def _stored(node: cst.CSTNode) -> set[str]:
    names: set[str] = set()

    def targets(t) -> None:
        if isinstance(t, cst.Name):
            names.add(t.value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                targets(el.value)
        elif isinstance(t, cst.StarredElement):
            targets(t.value)

    for n in iter_nodes(node):
        if isinstance(n, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            targets(n.target)
        elif isinstance(n, cst.AsName):
            targets(n.name)
        elif isinstance(n, cst.ImportAlias) and n.asname is None:
            head = n.name
            while isinstance(head, cst.Attribute):
                head = head.value
            if isinstance(head, cst.Name):
                names.add(head.value)
        elif isinstance(n, (cst.Global, cst.Nonlocal)):
            names.update(item.name.value for item in n.names)
        elif isinstance(n, cst.ExceptHandler) and n.name is not None:
            targets(n.name.name)
    return names


def _reads(fn: cst.FunctionDef):
    """Names read in the function, in source order (decorators, defaults and annotations
    included); attribute names, keywords and the names a statement binds are not reads."""
    skip: set[int] = set()
    for n in iter_nodes(fn):
        if isinstance(n, cst.Attribute):
            skip.add(id(n.attr))
        elif isinstance(n, cst.Arg) and n.keyword is not None:
            skip.add(id(n.keyword))
        elif isinstance(n, (cst.FunctionDef, cst.ClassDef)):
            skip.add(id(n.name))
        elif isinstance(n, cst.Param):
            skip.add(id(n.name))
        elif isinstance(n, (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)):
            skip.update(id(x) for x in iter_nodes(n) if isinstance(x, cst.Name))
    for n in iter_nodes(fn):
        if isinstance(n, cst.Name) and id(n) not in skip:
            yield n


DOC = """\\
## What it checks
A kernel, stage, vector function or helper reads a name that nothing binds: not a
parameter, not assigned in the function, not a module-level name or import, not a Python
builtin. (Files with `from x import *` are not checked.)

## Why it matters for pipelining
The kernel cannot compile, so neither the serial nor the pipelined version can run, and
nothing about the pipeline can be shown. A misspelt tile or buffer name also hides an
access from the sync analysis: its reads and writes would never be synchronised.

## Example
```python
@pl.pipeline.stage
def st(ki, sub_id, out, x_db):
    x = x_db.next()
    pl.store(out, x, [ki * TILE + sub_id * HALFF, 0])   # `HALFF` is bound nowhere
```

## Use instead
```python
    pl.store(out, x, [ki * TILE + sub_id * HALF, 0])
```
"""

INVALID = (
    ex.kernel(st=ex.ST.replace("sub_id * HALF, 0])", "sub_id * HALFF, 0])  # E: PTO069")),
    ex.kernel(loop=ex.loop(ex.cube(), ex.vector("st(ki, sub_idx, out, x_db)  # E: PTO069"))),
)

VALID = (ex.kernel(),)

RULE = Rule(
    code="PTO069",
    name="undefined-name",
    title="A name is read that nothing binds",
    message="`{name}` is not defined in `{function}` (no parameter, assignment, module-level name or builtin binds it)",
    hint="Fix the spelling of `{name}`, or bind it before it is used",
    phase="file",
    check=check,
    seed="a kernel file must compile: every name it reads is bound",
    doc=DOC,
    invalid=INVALID,
    valid=VALID,
)
