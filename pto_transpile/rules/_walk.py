"""Small tree walks the rules share (the walks analysis shares too are in walk.py)."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from pto_transpile.read.meaning import Unknown
from pto_transpile.read.walk import blocks, find


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    return find(node, cst.Call)


def statements(stmts) -> Iterator[cst.BaseStatement]:
    """Every statement at any depth (compound statements and their bodies)."""
    for s in stmts:
        yield s
        for block in blocks(s, functions=True):
            yield from statements(block)


def stage_users(ctx) -> dict[str, list[int]]:
    """Cross-core buffer -> indices of the stages of `ctx.loop` that access it."""
    users: dict[str, list[int]] = {}
    for i, accesses in enumerate(ctx.accesses):
        for a in accesses:
            if ctx.kernel.buffers[a.buffer].cross_core and i not in users.setdefault(a.buffer, []):
                users[a.buffer].append(i)
    return users


def tries_around_stage_calls(ctx) -> dict[cst.Call, tuple[int, int]]:
    """Stage calls of the kernel that sit in a `try` statement inside one of its `for` loops ->
    (line of the `try`, line of the loop): the transform pipelines the section blocks a loop's
    body holds itself, so such calls are outside every pipeline loop, and saying so without the
    `try` names nothing the author wrote (probe h207)."""
    file = ctx.file
    out: dict[cst.Call, tuple[int, int]] = {}
    for loop in find(ctx.kernel.node.body, cst.For):
        for kind in (cst.Try, cst.TryStar):
            for block in find(loop.body, kind):
                for call in find(block, cst.Call):
                    if isinstance(call.func, cst.Name) and call.func.value in file.stages and call not in out:
                        out[call] = (file.source.span(block).start.line, file.source.span(loop).start.line)
    return out


def stage_methods(file) -> list[tuple[str, str]]:
    """(class, function) of each function decorated `@pl.pipeline.stage` in the body of a class of
    the module, nested classes too (`Outer.Stages`: probe h245): the tool reads module-level stages
    only."""
    out: list[tuple[str, str]] = []
    todo = [(stmt.name.value, stmt) for stmt in file.source.module.body if isinstance(stmt, cst.ClassDef)]
    while todo:
        name, cls = todo.pop(0)
        for fn in cls.body.body:
            if isinstance(fn, cst.ClassDef):
                todo.append((f"{name}.{fn.name.value}", fn))
            elif isinstance(fn, cst.FunctionDef) and any(file.pl.path(d.decorator) == ("pipeline", "stage")
                                                         for d in fn.decorators):
                out.append((name, fn.name.value))
    return out


def unknown_callee(file, func: cst.BaseExpression, local: set[str]) -> bool:
    """Is `func` a module name, not one of the calling function's `local` names nor an import, whose
    function cannot be known without running the file? PTO070 reports such a call; what it may do
    with a tile group is not known, so rules that would blame the call for it stay silent (probes
    h242, h245)."""
    if type(func) is not cst.Name or func.value in local:
        return False
    meaning = file.meaning(func.value)
    return isinstance(meaning, Unknown) and not meaning.imported
