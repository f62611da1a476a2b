"""What a mutator needs to know about a kernel file: its stages, kernels, tile groups, pipeline
loops, and byte offsets for text edits.

Structure comes from Python's `ast` (independent of the transpiler's own reading, which is
what the fuzzer tests); only the byte size and range of each tile group are taken from
pto-transpile's declaration reader, so sizes are folded exactly as the tool folds them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile

SECTIONS = ("section_cube", "section_vector")
ID_KEYWORDS = ("fwd_ids", "bwd_ids", "mutex_ids")


@dataclass
class Group:
    """`name = pl.make_tile_group(...)` inside a kernel."""

    name: str
    call: ast.Call
    keywords: dict[str, ast.keyword]
    memory: str | None = None  #: memory space, from the transpiler's reader
    slot_bytes: int | None = None
    ranges: list[tuple[int, int]] | None = None

    @property
    def start(self) -> int | None:
        return self.ranges[0][0] if self.ranges else None

    @property
    def end(self) -> int | None:
        return self.ranges[-1][1] if self.ranges else None


@dataclass
class Loop:
    """A pipeline loop: a `for` in a kernel whose body holds section blocks calling stages."""

    node: ast.For
    var: str
    calls: list[tuple[ast.stmt, ast.Call]] = field(default_factory=list)  #: (statement, stage call)


def decorator_text(dec: ast.expr) -> str:
    return ast.unparse(dec.func if isinstance(dec, ast.Call) else dec)


def is_pl_call(stmt: ast.stmt) -> bool:
    """`pl.op(...)` as a statement: an op of a stage."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id == "pl"


def blocks(node: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every statement list under `node` (its body, then nested bodies), outermost first."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
            for stmt in block:
                yield from blocks(stmt)
    for handler in getattr(node, "handlers", ()) or ():
        yield from blocks(handler)


def is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def first_line(stmt: ast.stmt) -> int:
    """First line of a statement, decorators included."""
    decorators = getattr(stmt, "decorator_list", None) or []
    return min([stmt.lineno] + [d.lineno for d in decorators])


class Anatomy:
    """A parsed kernel file with byte-offset editing."""

    def __init__(self, text: str, path: str = "kernel.py"):
        self.text = text
        self.path = path
        self.tree = ast.parse(text)
        self.data = text.encode()
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line.encode()))
        functions = [n for n in self.tree.body if isinstance(n, ast.FunctionDef)]
        self.stages = [f for f in functions
                       if any(decorator_text(d).endswith("pipeline.stage") for d in f.decorator_list)]
        self.kernels = [f for f in functions if any(decorator_text(d).endswith("jit") for d in f.decorator_list)]

    # --- text editing -------------------------------------------------------------------

    def offset(self, line: int, col: int) -> int:
        """Byte offset of (1-based line, 0-based byte column)."""
        return self.starts[line - 1] + col

    def node_span(self, node) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def lines_span(self, first: int, last: int) -> tuple[int, int]:
        """Byte span of whole lines first..last (1-based, inclusive, with their newlines)."""
        return self.starts[first - 1], self.starts[last]

    def stmt_span(self, stmt: ast.stmt) -> tuple[int, int]:
        return self.lines_span(first_line(stmt), stmt.end_lineno)

    def segment(self, start: int, end: int) -> str:
        return self.data[start:end].decode()

    def source_of(self, node) -> str:
        return self.segment(*self.node_span(node))

    def edit(self, *edits: tuple[int, int, str]) -> str:
        """Apply non-overlapping (start, end, replacement) byte edits."""
        data = self.data
        for start, end, new in sorted(edits, reverse=True):
            data = data[:start] + new.encode() + data[end:]
        return data.decode()

    def indent_of(self, stmt: ast.stmt) -> str:
        line = self.lines[first_line(stmt) - 1]
        return line[:len(line) - len(line.lstrip())]

    # --- structure ----------------------------------------------------------------------

    @property
    def functions(self) -> list[ast.FunctionDef]:
        """Stages and kernels: where one-place edits are plausible."""
        return self.stages + self.kernels

    @cached_property
    def region(self) -> tuple[int, int]:
        """Lines from the first stage (or kernel) to the end of the last kernel."""
        funcs = self.functions
        if not funcs:
            return 1, len(self.lines)
        return min(first_line(f) for f in funcs), max(f.end_lineno for f in funcs)

    @cached_property
    def stage_names(self) -> set[str]:
        return {s.name for s in self.stages}

    @cached_property
    def loops(self) -> list[Loop]:
        out = []
        for kernel in self.kernels:
            for node in ast.walk(kernel):
                if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name)):
                    continue
                loop = Loop(node, node.target.id)
                for stmt in node.body:
                    for inner in ast.walk(stmt):
                        if isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call) \
                                and isinstance(inner.value.func, ast.Name) and inner.value.func.id in self.stage_names:
                            loop.calls.append((inner, inner.value))
                if loop.calls:
                    out.append(loop)
        return out

    @cached_property
    def groups(self) -> list[Group]:
        facts = {}
        try:
            model = read(SourceFile.parse(self.text, self.path))
            for kernel in model.kernels:
                facts.update(kernel.buffers)
        except Exception:  # a file the reader cannot take still has a syntax tree to mutate
            pass
        out = []
        for kernel in self.kernels:
            for node in ast.walk(kernel):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                        and isinstance(node.value, ast.Call) \
                        and ast.unparse(node.value.func).endswith("make_tile_group"):
                    name = node.targets[0].id
                    kws = {k.arg: k for k in node.value.keywords if k.arg}
                    buf = facts.get(name)
                    out.append(Group(name, node.value, kws, getattr(buf, "memory", None),
                                     getattr(buf, "slot_bytes", None), getattr(buf, "ranges", None)))
        return out

    def int_list(self, node: ast.expr) -> list[int] | None:
        """The integers of a list display, or of a module-level name bound to one."""
        if isinstance(node, ast.Name):
            for stmt in self.tree.body:
                if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id
                                                        for t in stmt.targets):
                    node = stmt.value
        try:
            value = ast.literal_eval(node)
        except (ValueError, SyntaxError, TypeError):
            return None
        if isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return list(value)
        return None

    def stage_param_for_loop_var(self, stage: ast.FunctionDef) -> str:
        """The stage parameter that receives the pipeline loop variable (else its first parameter)."""
        params = [a.arg for a in stage.args.args]
        for loop in self.loops:
            for _, call in loop.calls:
                if call.func.id != stage.name:
                    continue
                # a call may pass fewer positional arguments than the stage has parameters
                for param, arg in zip(params, call.args, strict=False):
                    if isinstance(arg, ast.Name) and arg.id == loop.var:
                        return param
                for kw in call.keywords:
                    if isinstance(kw.value, ast.Name) and kw.value.id == loop.var and kw.arg in params:
                        return kw.arg
        return params[0] if params else "0"
