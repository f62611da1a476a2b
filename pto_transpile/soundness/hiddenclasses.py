"""Classes whose methods Python runs where the check does not look.

Python calls a class's methods without a call written: making an instance runs `__init__`,
`x[i]` runs `__getitem__` (`C[i]` a `__class_getitem__`), `if x:` runs `__bool__`, reading
`C.attr` may run a metaclass's `__getattr__`, and a builtin handed the class (`max(...,
key=C)`) calls it. The check runs the kernel's Python statement by statement and follows the
`pl` ops of the file's functions and of the `@staticmethod`s of a class nothing can replace
(`classnames.plain_members`); a method run those other ways would raise or wait for events or
run `pl` ops it never sees. So a kernel that reaches a class whose methods reach `pl` (or
the builtins that run code of their choosing), by any mention at all, is refused, unless the
class is such a plain one (its members used only as `Class.member`).

Read from Python's syntax tree of the file's top-level statements: which definitions reach
`pl` (a fixed point over the names their code mentions), and which names the kernel reaches
(its code, and, through each name it mentions, the statements that bind that name).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

import libcst as cst

from pto_transpile.read.layout import stored_names
from pto_transpile.read.meaning import Class

#: Builtins through which code reaches what the check cannot follow (a namespace, code run from text).
_RISKY = frozenset({"exec", "eval", "compile", "__import__", "globals", "vars", "locals", "getattr", "setattr",
                    "importlib", "sys"})


def hidden_class(file, kernel) -> tuple[str, int, str] | None:
    """(name, line of a mention, what it is) of a name the kernel reaches that Python may run
    `pl` ops through where the check does not look: a class whose methods reach `pl` and which
    is not plain ("class"), or a module name made by a call whose code reaches `pl` ("object":
    `KICK = make_kick()`, `K = type("K", (), {"__getitem__": kick})`); None when there is none."""
    tops = file.source.python_statements()
    names = {s.name for s in tops if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))} | {"type"}
    made = [s for s in tops if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and any(isinstance(n, ast.Call) for n in ast.walk(s)) and _names_in([s]) & names]
    if not made and not any(isinstance(s, ast.ClassDef) and (s.bases or s.keywords or _methods(s)) for s in tops):
        return None  # (no class with code of its own, no object made by the file's code: answered without a walk)
    reaching = _reaching(tops, file.pl.aliases, file.pl.module_ref or "pl")
    bad = {s.name: "class" for s in tops if isinstance(s, ast.ClassDef) and s.name in reaching
           and not _plain(file, s.name)}
    for stmt in made:
        if _names_in([stmt]) & reaching:
            bad.update(dict.fromkeys(_bound(stmt), "object"))
    if not bad:
        return None
    for name, line in _reached(tops, kernel.name):
        if name in bad:
            return name, line, bad[name]
    return None


def _code(stmt: ast.stmt) -> list[ast.AST]:
    """The code of a definition that runs after the module was made: a function's whole `def`;
    for a class, its methods (at any depth), its bases and keywords (a metaclass), whose code is
    the class's too."""
    if isinstance(stmt, ast.ClassDef):
        return [*stmt.bases, *stmt.keywords, *_methods(stmt)]
    return [stmt]


def _runs_pl(code: list[ast.AST], aliases: dict[str, tuple[str, ...]], ref: str) -> bool:
    """Does `code` name a `pl` op (`pl.store`, `pl.system.sync_all`, `store` imported from it),
    the module itself, or a builtin that runs code of its choosing? A name of a type or a
    constant (`pl.DT_FP16`, `pl.PipeType.FIX`, `pl.Tensor[...]`: a part that starts with a
    capital) is none of those."""
    for root in code:
        parents = {id(child): node for node in ast.walk(root) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(root):
            if not isinstance(node, ast.Name):
                continue
            if node.id in _RISKY:
                return True
            if node.id != ref and node.id not in aliases:
                continue
            path, at = list(aliases.get(node.id, ())), id(node)
            while isinstance(up := parents.get(at), ast.Attribute):
                path.append(up.attr)
                at = id(up)
            if not any(part[:1].isupper() for part in path):
                return True
    return False


def _methods(cls: ast.ClassDef) -> list[ast.AST]:
    """The functions defined anywhere in a class body (methods, and those nested in them)."""
    return [n for n in ast.walk(cls) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]


def _names_in(nodes: Iterable[ast.AST]) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}


def _reaching(tops: list[ast.stmt], aliases: dict[str, tuple[str, ...]], ref: str) -> set[str]:
    """The top-level functions and classes whose code runs `pl` ops or a risky builtin
    (`_runs_pl`), directly or through another such definition."""
    code = {s.name: _code(s) for s in tops if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    defs = {name: _names_in(nodes) for name, nodes in code.items()}
    found = {name for name, nodes in code.items() if _runs_pl(nodes, aliases, ref)}
    while True:
        more = {name for name, names in defs.items() if name not in found and names & found}
        if not more:
            return found
        found |= more


def _reached(tops: list[ast.stmt], kernel: str) -> list[tuple[str, int]]:
    """Each module name the kernel reaches, with the line of its first mention: the names its
    `def` reads that it does not bind itself, and through each, those of the statements that
    bind it (definitions, and module-level assignments and imports)."""
    binders: dict[str, list[ast.stmt]] = {}
    for stmt in tops:
        for name in _bound(stmt):
            binders.setdefault(name, []).append(stmt)
    seen: dict[str, int] = {}
    done: set[int] = set()
    todo: list[ast.stmt] = [s for s in binders.get(kernel, ())
                            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    while todo:
        stmt = todo.pop()
        if id(stmt) in done:
            continue
        done.add(id(stmt))
        own = _locals(stmt)
        typed = {id(n) for ann in _annotations(stmt) for n in ast.walk(ann)}
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id not in own and node.id not in seen and id(node) not in typed:
                seen[node.id] = node.lineno
                todo += binders.get(node.id, [])
    return sorted(seen.items(), key=lambda item: item[1])


def _annotations(stmt: ast.stmt) -> list[ast.expr]:
    """The annotations of a function's parameters and return, and of its annotated assignments:
    names the kernel never runs (a tiling-data parameter's class: what its instance runs is
    judged where the kernel reads it, `tilingdata.tiling_methods`)."""
    if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    args = stmt.args
    found = [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
             if a is not None and a.annotation is not None]
    found += [n.annotation for n in ast.walk(stmt) if isinstance(n, ast.AnnAssign)]
    return found + ([stmt.returns] if stmt.returns is not None else [])


def _locals(stmt: ast.stmt) -> set[str]:
    """The names a top-level statement binds for itself alone: a function's parameters and the
    names its body binds (but those it declares `global`), a class's own name; none for any
    other statement."""
    if isinstance(stmt, ast.ClassDef):
        return {stmt.name}
    if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    args = stmt.args
    own = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}
    declared: set[str] = set()
    # a comprehension's variable is its own scope's (`[KICK for KICK in ...]` binds no `KICK` of the function)
    scoped = {id(n) for c in ast.walk(stmt) if isinstance(c, ast.comprehension) for n in ast.walk(c.target)}
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in scoped:
            own.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not stmt:
            own.add(node.name)
    return own - declared


def _bound(stmt: ast.stmt) -> set[str]:
    """The module names a top-level statement binds."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    return stored_names([stmt])


def _plain(file, name: str) -> bool:
    """Whether class `name` is one whose `@staticmethod`s and constants the check follows."""
    meaning = file.meaning(name)
    return isinstance(meaning, Class) and isinstance(meaning.node, cst.ClassDef) and file.fixed_members(meaning.node)
