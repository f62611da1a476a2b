"""Lower the `@pl.jit` kernel function so each core can skip the other core type's sections.

A context manager cannot skip its `with` body, so the kernel function (only it) is re-parsed
and every `with pl.section_cube():` / `with pl.section_vector():` becomes
`if __pl_sim_section__('cube', <line>):`. Nodes keep their original positions and the code
is compiled under the kernel's file name, so tracebacks and reports point at the user's
file:line. The same pass records, for each sync call site, the stage call it guards (for
deadlock reports) and which section kinds exist (mix / vector-only / cube-only kernel).
"""

from __future__ import annotations
import __future__

import ast
import functools
import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass, field

from sim_runtime.errors import KernelError, Location, caller
from sim_runtime.scheduler import current_core
from sim_runtime.typedlocals import TYPED_FN, typed_assignment, typed_local

SECTION_FN = "__pl_sim_section__"
_SECTIONS = {"section_cube": "cube", "section_vector": "vector"}
_SYNC_CALLS = {"set_cross_core": True, "wait_cross_core": False}  # name -> site is after its stage
_FunctionDef = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class LoweredKernel:
    fn: Callable
    kind: str  # "mix" | "vector" | "cube"
    sync_owner: dict = field(default_factory=dict)  # line -> (stage fn name, site after the stage?)
    stage_numbers: dict = field(default_factory=dict)


def _callee_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute):
            return f.attr
        if isinstance(f, ast.Name):
            return f.id
    return None


class _Sections(ast.NodeTransformer):
    def __init__(self, filename: str):
        self.filename = filename
        self.kinds: set[str] = set()

    def visit_AnnAssign(self, node: ast.AnnAssign):
        """`x: pl.DT_FP16 = v`: the kernel's scalar `x` is of that dtype on the device, so `v` is
        converted to it (a number; anything else is kept)."""
        self.generic_visit(node)
        return typed_assignment(node)

    def visit_With(self, node: ast.With):
        self.generic_visit(node)
        kinds = [_SECTIONS.get(_callee_name(it.context_expr) or "") for it in node.items]
        if not any(kinds):
            return node
        if len(node.items) != 1 or node.items[0].optional_vars is not None:
            raise KernelError("a section `with` takes exactly one pl.section_*() and no `as`",
                              Location(self.filename, node.lineno))
        kind = next(k for k in kinds if k)
        self.kinds.add(kind)
        test = ast.Call(func=ast.Name(SECTION_FN, ast.Load()),
                        args=[ast.Constant(kind), ast.Constant(node.lineno)], keywords=[])
        new = ast.If(test=test, body=node.body, orelse=[])
        ast.copy_location(new, node)
        ast.copy_location(test, node)
        return ast.fix_missing_locations(new)


def _stage_names(g: dict) -> dict[str, int]:
    return {name: obj.sim_stage_number for name, obj in g.items()
            if getattr(obj, "pipeline_stage", False) and hasattr(obj, "sim_stage_number")}


def _sync_owners(fdef: _FunctionDef, stages: dict) -> dict:
    """For each sync call statement, the stage call in the same block it waits for / signals."""
    owners = {}
    for node in ast.walk(fdef):
        for body in (getattr(node, "body", None), getattr(node, "orelse", None)):
            if not isinstance(body, list):
                continue
            calls = [(i, _callee_name(s.value)) for i, s in enumerate(body) if isinstance(s, ast.Expr)]
            stage_at = [(i, n) for i, n in calls if n in stages]
            for i, n in calls:
                if n not in _SYNC_CALLS:
                    continue
                after = _SYNC_CALLS[n]
                cands = [s for s in stage_at if (s[0] < i if after else s[0] > i)]
                if cands:
                    owners[body[i].lineno] = (cands[-1][1] if after else cands[0][1], after)
    return owners


def _find_def(tree: ast.Module, name: str, first: int) -> _FunctionDef | None:
    cands = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    for n in cands:
        if first in [n.lineno] + [d.lineno for d in n.decorator_list]:
            return n
    return cands[-1] if cands else None


def _no_source(fn) -> KernelError:
    return KernelError(f"cannot find the source of kernel {fn.__name__} (it must be a module-level function)")


def lower(fn) -> LoweredKernel:
    g = fn.__globals__
    filename = fn.__code__.co_filename
    source = g.get("__pl_sim_source__")
    if source is None:
        home = inspect.getmodule(fn)
        if home is None:
            raise _no_source(fn)
        source = inspect.getsource(home)
    future = g.get("annotations")
    flags = future.compiler_flag if isinstance(future, __future__._Feature) else 0
    stages = _stage_names(g)
    found = _lowered_code(source, filename, fn.__name__, fn.__code__.co_firstlineno, flags,
                          tuple(sorted(stages)))
    if found is None:
        raise _no_source(fn)
    code, kind, owners = found
    ns: dict = {}
    exec(code, g, ns)
    g[SECTION_FN] = section_entry
    g[TYPED_FN] = typed_local
    return LoweredKernel(ns[fn.__name__], kind, dict(owners), stages)


@functools.lru_cache(maxsize=32)
def _lowered_code(source: str, filename: str, name: str, first: int, flags: int,
                  stages: tuple[str, ...]) -> tuple[types.CodeType, str, dict] | None:
    """The lowered kernel `name` of `source` compiled, its kind and its syncs' owners, once per
    file text: a verification lowers the same kernel for every run (serial, pipelined, each
    launch). None when the source has no such `def`."""
    fdef = _find_def(ast.parse(source, filename), name, first)
    if fdef is None:
        return None
    fdef.decorator_list = []
    sections = _Sections(filename)
    fdef = sections.visit(fdef)
    module = ast.fix_missing_locations(ast.Module(body=[fdef], type_ignores=[]))
    kinds = sections.kinds
    # no section_cube compiles aiv-only, a section-less kernel too (`assumed.py`)
    kind = "mix" if kinds == {"cube", "vector"} else "cube" if kinds == {"cube"} else "vector"
    code = compile(module, filename, "exec", flags=flags, dont_inherit=True)
    return code, kind, _sync_owners(fdef, dict.fromkeys(stages))


def section_entry(kind: str, line: int) -> bool:
    """Lowered form of `with pl.section_<kind>():` -- does the calling core run the body?"""
    core = current_core()
    if core is None:
        raise KernelError(f"pl.section_{kind}() outside a simulated kernel run", caller())
    return core.machine.enter_section(core, kind, line)
