"""Parse with libcst only the top-level statements the analysis reads; keep the rest as text.

A kernel file often carries much more than the kernel: tests, references, plotting helpers.
libcst's parse builds several Python objects per token, so parsing them costs time and
memory for nothing. From the layout Python's parser found (`layout.Layout`), a function or
class is parsed only when the analysis can reach it: it is decorated as a kernel, stage or
vector function, or its name is mentioned by something parsed that way. Every other
statement (imports, constants, guards) is parsed too. Vector functions nothing can report
into are read with Python's parser instead (`vfbody.py`). What is left becomes a
`Verbatim` node holding its exact text, so the module still prints byte for byte as it
was read, and positions (per statement, `source.py`) stay exact.

The parsed statements are parsed together, in one libcst call, each behind a `pass` line so
that no statement can take over comment lines of another; a first `if` block sets the
indentation and newline libcst would have inferred from the whole file. Python's compiler
has checked the whole text already (`layout.py`), so a syntax error anywhere is still
found. Whenever anything does not line up, the caller parses the whole file instead.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import libcst as cst

from pto_api.ops import VF_OP_ROLES
from pto_transpile.read import vfbody
from pto_transpile.read.layout import Layout, stored_names
from pto_transpile.read.vfbody import VfBody

#: Decorator names that make a function a root of the analysis (`@pl.jit`, `@pl.pipeline.stage`,
#: `@pl.vector_function`, however `pl` is spelled).
ROOT_DECORATORS = frozenset({"jit", "stage", "vector_function"})
_DEFINITION = re.compile(r"(?:async[ \t]+)?(?:def|class)[ \t]+([^\W\d]\w*)")
#: The keyword of a top-level definition's own line (below its decorators and leading comments).
_KEYWORD = re.compile(r"^(?:async[ \t]+)?(def|class)[ \t]", re.M)
_WORD = re.compile(r"[^\W\d]\w*")
#: An indented decorator naming `jit` (`    @pl.jit(...)`): a kernel defined inside a definition.
_NESTED_JIT = re.compile(r"^[ \t]+@[ \t]*[\w.]*\bjit\b", re.M)
_NEWLINE = re.compile(r"\r\n|\r|\n")
#: Characters Python and a line-based reading could disagree on (form feed resets indentation).
_AMBIGUOUS = re.compile(r"[\f\v\x00]")


class ReadWhole(Exception):
    """Raised by the reader when text kept here turns out to be needed as a tree."""


@dataclass(frozen=True, eq=False)  # equal only to itself, as every libcst node is
class Verbatim(cst.BaseStatement):
    """A top-level `def` or `class` kept as its exact text (leading lines included): one no
    analysis reads, or a vector function read with Python's parser (`vf`). It prints as it
    was read and has no children."""

    text: str
    name: str
    vf: VfBody | None = None  #: for a vector function: what the role analyses read
    decorators: tuple = ()  #: for a vector function: each decorator's dotted name (None if not one)
    tree: ast.FunctionDef | None = None  #: for a vector function: its Python syntax tree (read once)

    def _visit_and_replace_children(self, visitor) -> Verbatim:
        return self

    def _codegen_impl(self, state) -> None:
        body = self.text.rstrip("\r\n")
        state.add_token(body)
        state.add_token(self.text[len(body):])  # the final newline alone: the module may drop it

    @property
    def is_class(self) -> bool:
        """Whether the kept definition is a `class` (else a `def`)."""
        m = _KEYWORD.search(self.text)
        return m is not None and m.group(1) == "class"

    def __repr__(self) -> str:
        return f"Verbatim({self.name!r}, {len(_NEWLINE.findall(self.text))} lines)"


def leading_line_count(text: str) -> int:
    """The blank and comment lines a kept definition's text starts with (before its first
    decorator or its `def`/`class` line)."""
    count = 0
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            break
        count += 1
    return count


@dataclass
class Partial:
    module: cst.Module
    first_lines: list[int]  #: 1-based line on which each statement of `module.body` starts
    texts: dict[cst.CSTNode, str]  #: each statement -> the text it was read from
    tail: str  #: the text after the last statement (`module.footer`)


def parse(text: str, layout: Layout) -> Partial | None:
    """The module with only what the analysis needs parsed, or None when the whole file must
    be parsed (nothing to skip, unusual text, or a syntax error to be reported from there)."""
    n = layout.count
    if n == 0 or not text.endswith(("\n", "\r")) or _AMBIGUOUS.search(text):
        return None
    chunks = [text[layout.bounds[i]:layout.bounds[i + 1]] for i in range(n)]
    names = [_definition(text, layout, i) for i in range(n)]
    as_text = _vector_functions(text, layout, names, chunks)
    keep = _needed(text, layout, names, set(as_text))
    if keep is None or len(keep) == n:
        return None
    newline = _NEWLINE.search(text).group()  # type: ignore[union-attr]  # the text ends with one
    barrier = "pass" + newline
    head = f"if 1:{newline}{layout.first_indent}pass{newline}{barrier}"
    parts = [head]
    for i in range(n):
        if i in keep:
            parts += [chunks[i], barrier]
    parts.append(text[layout.bounds[n]:])
    try:
        sub = cst.parse_module("".join(parts))
    except cst.ParserSyntaxError:
        return None  # positions in the stitched text mean nothing: let the whole parse report it
    parsed = list(sub.body)
    if len(parsed) != 2 + 2 * len(keep) or not all(_is_barrier(s) for s in parsed[1::2]):
        return None
    statements = iter(parsed[2::2])
    body: list[cst.BaseStatement] = []
    for i, name in enumerate(names):
        if i in keep:
            body.append(next(statements))
        else:
            assert name is not None  # only definitions are left unparsed
            body.append(Verbatim(chunks[i], name, *as_text.get(i, (None, (), None))))
    module = cst.Module(body=body,  # type: ignore[arg-type]  # a Verbatim stands where its def or class was
                        header=(), footer=sub.footer, encoding=sub.encoding,
                        default_indent=sub.default_indent, default_newline=sub.default_newline,
                        has_trailing_newline=True)
    return Partial(module, list(layout.lines[:n]), {stmt: chunk for stmt, chunk in zip(body, chunks, strict=True)},
                   text[layout.bounds[n]:])


def _definition(text: str, layout: Layout, i: int) -> str | None:
    """The name a top-level `def`/`class` statement binds, None for any other statement."""
    m = _DEFINITION.match(text, layout.heads[i])
    return m.group(1) if m else None


def _needed(text: str, layout: Layout, names: list[str | None], as_text: set[int]) -> set[int] | None:
    """Statements to parse: every statement that is not a definition, every definition
    decorated as a root, and (transitively) every definition a parsed one mentions, or that a
    statement binding a name it mentions mentions (`halve = Epilogue.halve`), but the vector
    functions read as text. None when there is no root: a file without kernels is read whole."""
    keep = {i for i, name in enumerate(names) if name is None}
    by_name: dict[str, list[int]] = {}
    followed: set[int] = set()  #: statements other than definitions whose names were followed
    todo = []
    for i, name in enumerate(names):
        if name is None:
            continue
        by_name.setdefault(name, []).append(i)
        decorators = text[layout.bounds[i]:layout.heads[i]]
        if "@" in decorators and ROOT_DECORATORS.intersection(_WORD.findall(decorators)):
            todo.append(i)
        elif _NESTED_JIT.search(text, layout.heads[i], layout.bounds[i + 1]):
            # a kernel made inside (a factory): what its `@pl.jit` binds in every function of the file
            # (tiling-key fields, `datatype=` names) is read from it (probe h215)
            todo.append(i)
        elif ":=" in text[layout.bounds[i]:layout.bounds[i + 1]]:
            # a `:=` in what the statement evaluates where it stands (a default, an annotation, a
            # base) binds a module name: the names' reading needs it parsed
            keep.add(i)
    if not todo:
        return None
    binders: dict[str, list[int]] = {}  #: name -> the statements other than definitions that bind it
    for i, name in enumerate(names):
        if name is None:
            for bound in stored_names(layout.statements[i]):
                binders.setdefault(bound, []).append(i)
    while todo:
        i = todo.pop()
        if i in as_text or (i in keep if names[i] is not None else i in followed):
            continue
        keep.add(i)
        followed.add(i)
        for word in layout.names(i):
            todo += [j for j in by_name.get(word, ()) if j not in keep]
            todo += [j for j in binders.get(word, ()) if j not in followed]
    return keep


def _vector_functions(text: str, layout: Layout, names: list[str | None], chunks: list[str]) -> dict[int, tuple]:
    """Vector functions to read with Python's parser: index -> (VfBody, decorators, tree). Only
    those nothing will report into (a `vf.*` op the role table does not know on a
    parameter, a tile group declared in them) and that name no other definition but such
    vector functions (what they call is checked through them)."""
    candidates = [i for i, name in enumerate(names) if name is not None
                  and "vector_function" in _WORD.findall(text[layout.bounds[i]:layout.heads[i]])]
    others = {name for i, name in enumerate(names) if name is not None and i not in candidates}
    out = {}
    for i in candidates:
        if "make_tile_group" in chunks[i] or layout.names(i) & others:
            continue
        trees = layout.statements[i]  # Python's tree from the layout's parse (file lines), never changed
        if len(trees) != 1 or type(trees[0]) is not ast.FunctionDef:
            continue
        fn = trees[0]
        body = vfbody.from_ast(fn)
        if any(call.op is not None and call.op not in VF_OP_ROLES
               and any(vfbody.root(a, aliases) for a in (*call.args, *dict(call.keywords).values()))
               for call, aliases in vfbody.calls(body)):
            continue
        out[i] = (body, tuple(_dotted(d.func if isinstance(d, ast.Call) else d) for d in fn.decorator_list), fn)
    changed = True
    while changed:  # a vector function naming one that must be parsed is parsed too
        parsed = {names[i] for i in candidates if i not in out}
        changed = False
        for i in list(out):
            if layout.names(i) & parsed:
                del out[i]
                changed = True
    return out


def _dotted(node: ast.expr) -> tuple[str, ...] | None:
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else base + (node.attr,)
    return None


def _is_barrier(stmt: cst.BaseStatement) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and not stmt.leading_lines and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Pass))
