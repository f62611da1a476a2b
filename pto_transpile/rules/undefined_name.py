from __future__ import annotations

import builtins
from functools import partial

import libcst as cst

from pto_transpile import codes
from pto_transpile.read.deadcode import dead_nodes
from pto_transpile.read.walk import iter_nodes
from pto_transpile.rules._spelling import undefined
from pto_transpile.rules.rule import Rule

_BUILTINS = frozenset(dir(builtins))


#: Nodes that bind names (read through the file's shared node index, one query per function).
_BINDERS = (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.AsName,
            cst.ImportAlias, cst.Global, cst.Nonlocal, cst.ExceptHandler, cst.Param, cst.FunctionDef, cst.ClassDef,
            cst.MatchAs, cst.MatchStar, cst.MatchMapping)
#: Nodes whose own names are not reads.
_NOT_READS = (cst.Attribute, cst.Arg, cst.FunctionDef, cst.ClassDef, cst.Param, cst.Import, cst.ImportFrom,
              cst.Global, cst.Nonlocal)


def check(ctx):
    file = ctx.file
    module_names = _module_bound(file)
    if module_names is None:
        return  # a star import binds names nobody can list
    seen: set[cst.CSTNode] = set()
    vfs = {f for f in file.vector_functions.values()}
    kernels = {k.node for k in file.kernels}
    for fn in [s.node for s in file.stages.values()] + list(file.vector_functions.values()) \
            + list(file.helpers.values()) + [k.node for k in file.kernels]:
        if fn in seen or not isinstance(fn, cst.FunctionDef):
            continue  # a function kept as text (no rule reads it) is not judged
        seen.add(fn)
        # `vf` (the register API, `pl.Vf`) is reserved inside vector functions: it needs no import there
        bound = module_names | _bound(file, fn) | ({"vf"} if fn in vfs else set())
        # its decorators, defaults and annotations run when the `def` does, outside it: the
        # function's own parameters and names are not bound there
        header = {n for part in _header(fn) for n in file.find(part, cst.Name)}
        # what a lambda or comprehension there binds for itself (`k=type("K", (), {"f": lambda s, e: e})`)
        in_header = module_names | {n for part in _header(fn) for n in _bound(file, part)}
        reported = set()
        reads = _reads(file, fn)
        dead = unread = None
        for name in reads:
            scope = in_header if name in header else bound
            if name.value not in scope and name.value not in _BUILTINS and name.value not in reported:
                dead = dead_nodes(file, fn) if dead is None else dead
                if name in dead:
                    continue  # a branch no kernel instance compiles
                reported.add(name.value)
                if unread is None:
                    unread = _unread_datatype(file)
                if name in header:
                    node, fields = undefined(file, fn, name, scope, reads, True)
                    yield node, {**fields, "_message": "header" + fields.get("_message", ""),
                                 "_hint": fields.get("_hint", "header")}
                else:
                    node, fields = undefined(file, fn, name, bound | _BUILTINS, reads, fn in kernels)
                    if unread and "param" not in fields:  # maybe a dtype name of a `datatype=` not read
                        fields = {**fields, "datatype": file.source.code(unread), "_message": "datatype",
                                  "_hint": "datatype"}
                    yield node, fields


def _unread_datatype(file) -> cst.BaseExpression | bool:
    """The `datatype=` value of a `@pl.jit(...)` whose dtype names cannot be read, or False."""
    return next((j.datatype_node for j in file.jits if j.datatype_node is not None and not j.datatypes), False)


def _header(fn: cst.FunctionDef) -> list[cst.CSTNode]:
    """The parts of a `def` evaluated where it stands: decorators, defaults, annotations."""
    p = fn.params
    params = [*p.posonly_params, *p.params, *p.kwonly_params,
              *([p.star_arg] if isinstance(p.star_arg, cst.Param) else []), *([p.star_kwarg] if p.star_kwarg else [])]
    parts: list[cst.CSTNode] = [d.decorator for d in fn.decorators]
    parts += [part for q in params for part in (q.default, q.annotation) if part is not None]
    return parts + ([fn.returns] if fn.returns is not None else [])


def _module_bound(file) -> set[str] | None:
    names: set[str] = set(file.jit_names)
    for stmt in file.source.module.body:
        if type(stmt) in (cst.FunctionDef, cst.ClassDef):
            names.add(stmt.name.value)
            # a `:=` in what the statement evaluates where it stands binds at module level too
            # (`def f(v=(STRIDE := 16))`: probe h120)
            evaluated = _header(stmt) if type(stmt) is cst.FunctionDef else [
                *(d.decorator for d in stmt.decorators), *(a.value for a in (*stmt.bases, *stmt.keywords))]
            names |= {n for part in evaluated for n in _walrus_targets(part)}
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if type(small) is cst.ImportFrom and type(small.names) is cst.ImportStar:
                    return None
                names |= _bound_by(small)
        elif isinstance(stmt, cst.BaseCompoundStatement):
            if file.find(stmt, cst.ImportStar):
                return None
            names |= _bound(file, stmt)
        else:
            names.add(getattr(stmt, "name", ""))  # a definition kept as its text
    return names


def _bound_by(small: cst.BaseSmallStatement) -> set[str]:
    """Names one module-level simple statement binds: its targets, and those of a `:=` anywhere
    in it (`_unused = (STRIDE := 16)` binds `STRIDE` at module level: probe h119)."""
    return _walrus_targets(small) | _targets_of(small)


def _walrus_targets(node: cst.CSTNode) -> set[str]:
    """The names a `:=` in `node` binds in the scope `node` is evaluated in (one in a lambda's body
    binds in the lambda's; one in a comprehension, in the scope around it)."""
    return {n for e in iter_nodes(node, skip_functions=True) if type(e) is cst.NamedExpr
            for n in _target_names(e.target)}


def _targets_of(small: cst.BaseSmallStatement) -> set[str]:
    if isinstance(small, cst.Assign):
        return {n for t in small.targets for n in _target_names(t.target)}
    if isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        return _target_names(small.target)
    if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
        out = set()
        for alias in small.names:
            if alias.asname is not None:
                out |= _target_names(alias.asname.name)
            else:
                head: cst.BaseExpression = alias.name
                while isinstance(head, cst.Attribute):
                    head = head.value
                if isinstance(head, cst.Name):
                    out.add(head.value)
        return out
    return set()


def _target_names(t) -> set[str]:
    if isinstance(t, cst.Name):
        return {t.value}
    if isinstance(t, (cst.Tuple, cst.List)):
        return {n for el in t.elements for n in _target_names(el.value)}
    if isinstance(t, cst.StarredElement):
        return _target_names(t.value)
    return set()


def _bound(file, node: cst.CSTNode) -> set[str]:
    """Names bound under `node`: targets, parameters (of nested functions and lambdas too),
    imports, nested definitions, comprehension targets, `global`/`nonlocal` names."""
    names: set[str] = set()
    targets = partial(_add_targets, names)
    for n in file.find(node, _BINDERS):
        if type(n) in (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr):
            targets(n.target)
        elif type(n) is cst.AsName:
            targets(n.name)
        elif type(n) is cst.ImportAlias:
            if n.asname is None:
                head: cst.BaseExpression = n.name
                while isinstance(head, cst.Attribute):
                    head = head.value
                if isinstance(head, cst.Name):
                    names.add(head.value)
        elif type(n) in (cst.Global, cst.Nonlocal):
            names.update(item.name.value for item in n.names)
        elif type(n) is cst.ExceptHandler:
            if n.name is not None:
                targets(n.name.name)
        elif isinstance(n, (cst.Param, cst.FunctionDef, cst.ClassDef)) and n is not node:
            names.add(n.name.value)
        elif isinstance(n, (cst.MatchAs, cst.MatchStar)) and n.name is not None:  # `case left:`, `case [*rest]:`
            names.add(n.name.value)
        elif isinstance(n, cst.MatchMapping) and n.rest is not None:  # `case {**rest}:`
            names.add(n.rest.value)
    return names


def _add_targets(names: set[str], t) -> None:
    """Add the names target `t` binds to `names` (starred ones too)."""
    if isinstance(t, cst.Name):
        names.add(t.value)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            _add_targets(names, el.value)
    elif isinstance(t, cst.StarredElement):
        _add_targets(names, t.value)


def _reads(file, fn: cst.FunctionDef):
    """Names read in the function, in source order (decorators, defaults and annotations
    included); attribute names, keywords and the names a statement binds are not reads."""
    skip: set[cst.CSTNode] = set()
    for n in file.find(fn, _NOT_READS):
        if type(n) is cst.Attribute:
            skip.add(n.attr)
        elif type(n) is cst.Arg:
            if n.keyword is not None:
                skip.add(n.keyword)
        elif type(n) in (cst.FunctionDef, cst.ClassDef, cst.Param):
            skip.add(n.name)
        else:  # imports, global, nonlocal
            skip.update(x for x in file.find(n, cst.Name))
    return [n for n in file.find(fn, cst.Name) if n not in skip]


DOC = """\
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

RULE = Rule(
    code=codes.UNDEFINED_NAME,
    name="undefined-name",
    title="A name is read that nothing binds",
    message="`{name}` is not defined in `{function}` (no parameter, assignment, module-level name or builtin binds it)",
    hint="Fix the spelling of `{name}`, or bind it before it is used",
    messages={
        "near": "`{name}` is not defined in `{function}`; did you mean `{suggestion}`?",
        "header": "`{name}` is not defined where `{function}` is defined (its defaults, annotations and decorators "
                  "are computed there, not in the function)",
        "headernear": "`{name}` is not defined where `{function}` is defined (its defaults, annotations and "
                      "decorators are computed there, not in the function); did you mean `{suggestion}`?",
        "parameter": "parameter `{param}` of `{function}` is never used, and `{name}` is read there but bound "
                     "nowhere: did you mean `{name}`?",
        "datatype": "`{name}` is not defined in `{function}`, unless `datatype={datatype}` of a `@pl.jit` binds it: "
                    "pto-transpile cannot read the dtype names that value binds",
    },
    hints={
        "near": "Write `{suggestion}`, or bind `{name}` before it is used",
        "header": "Bind `{name}` at module level before the `def`, or drop the default and pass the value at the call",
        "parameter": "Rename the parameter `{param}` to `{name}`",
        "datatype": "Write `datatype=` as a dict of strings (`datatype={{\"x\": \"x_dtype\"}}`), a module name bound "
                    "to one, or `dict(x=\"x_dtype\")`; or bind `{name}` before it is used",
    },
    phase="file",
    check=check,
    seed="a kernel file must compile: every name it reads is bound",
    doc=DOC,
)
