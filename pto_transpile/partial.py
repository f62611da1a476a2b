"""Parse with libcst only the top-level statements the analysis reads; keep the rest as text.

A kernel file often carries much more than the kernel: tests, references, plotting helpers.
libcst's parse builds several Python objects per token, so parsing them costs time and
memory for nothing. From the layout the prescan found (`prescan.Layout`), a function or
class is parsed only when the analysis can reach it: it is decorated as a kernel, stage or
vector function, or its name is mentioned by something parsed that way. Every other
statement (imports, constants, guards) is parsed too. What is left becomes a `Verbatim`
node holding its exact text, so the module still prints byte for byte as it was read, and
positions (per statement, `source.py`) stay exact.

The parsed statements are parsed together, in one libcst call, each behind a `pass` line so
that no statement can take over comment lines of another; a first `if` block sets the
indentation and newline libcst would have inferred from the whole file. Python's compiler
checks the kept text, so a syntax error anywhere is still found. Whenever anything does not
line up, the caller parses the whole file instead.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from pto_transpile.prescan import Layout

#: Decorator names that make a function a root of the analysis (`@pl.jit`, `@pl.pipeline.stage`,
#: `@pl.vector_function`, however `pl` is spelled).
ROOT_DECORATORS = frozenset({"jit", "stage", "vector_function"})
_DEFINITION = re.compile(r"(?:async[ \t]+)?(?:def|class)[ \t]+([^\W\d]\w*)")
_WORD = re.compile(r"[^\W\d]\w*")
_NEWLINE = re.compile(r"\r\n|\r|\n")
#: Characters Python and a line-based reading could disagree on (form feed resets indentation).
_AMBIGUOUS = re.compile(r"[\f\v\x00]")


@dataclass(frozen=True)
class Verbatim(cst.BaseStatement):
    """A top-level `def` or `class` no analysis reads, kept as its exact text (leading lines
    included); it prints as it was read and has no children."""

    text: str
    name: str

    def _visit_and_replace_children(self, visitor) -> "Verbatim":
        return self

    def _codegen_impl(self, state) -> None:
        body = self.text.rstrip("\r\n")
        state.add_token(body)
        state.add_token(self.text[len(body):])  # the final newline alone: the module may drop it

    def __repr__(self) -> str:
        return f"Verbatim({self.name!r}, {len(_NEWLINE.findall(self.text))} lines)"


@dataclass
class Partial:
    module: cst.Module
    first_lines: list[int]  #: 1-based line on which each statement of `module.body` starts
    texts: dict[int, str]  #: id of each statement -> the text it was read from
    tail: str  #: the text after the last statement (`module.footer`)


def parse(text: str, layout: Layout) -> Optional[Partial]:
    """The module with only what the analysis needs parsed, or None when the whole file must
    be parsed (nothing to skip, unusual text, or a syntax error to be reported from there)."""
    n = layout.count
    if n == 0 or not text.endswith(("\n", "\r")) or _AMBIGUOUS.search(text):
        return None
    chunks = [text[layout.bounds[i]:layout.bounds[i + 1]] for i in range(n)]
    names = [_definition(text, layout, i) for i in range(n)]
    keep = _needed(text, layout, names)
    if keep is None or len(keep) == n:
        return None
    if not _compiles([chunks[i] for i in range(n) if i not in keep]):
        return None
    newline = _NEWLINE.search(text).group()
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
    body = [next(statements) if i in keep else Verbatim(chunks[i], names[i]) for i in range(n)]
    module = cst.Module(body=body, header=(), footer=sub.footer, encoding=sub.encoding,
                        default_indent=sub.default_indent, default_newline=sub.default_newline,
                        has_trailing_newline=True)
    return Partial(module, list(layout.lines[:n]), {id(stmt): chunk for stmt, chunk in zip(body, chunks)},
                   text[layout.bounds[n]:])


def _definition(text: str, layout: Layout, i: int) -> Optional[str]:
    """The name a top-level `def`/`class` statement binds, None for any other statement."""
    m = _DEFINITION.match(text, layout.heads[i])
    return m.group(1) if m else None


def _needed(text: str, layout: Layout, names: list[Optional[str]]) -> Optional[set[int]]:
    """Statements to parse: every statement that is not a definition, every definition
    decorated as a root, and (transitively) every definition a parsed one mentions. None
    when there is no root: a file without kernels is read whole."""
    keep = {i for i, name in enumerate(names) if name is None}
    by_name: dict[str, list[int]] = {}
    todo = []
    for i, name in enumerate(names):
        if name is None:
            continue
        by_name.setdefault(name, []).append(i)
        decorators = text[layout.bounds[i]:layout.heads[i]]
        if "@" in decorators and ROOT_DECORATORS.intersection(_WORD.findall(decorators)):
            todo.append(i)
    if not todo:
        return None
    while todo:
        i = todo.pop()
        if i in keep:
            continue
        keep.add(i)
        for word in layout.names[i]:
            todo += [j for j in by_name.get(word, ()) if j not in keep]
    return keep


def _compiles(chunks: list[str]) -> bool:
    """Python's own compiler accepts every kept statement (warnings about their contents
    are not ours to print)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for chunk in chunks:
            try:
                compile(chunk, "<kept>", "exec", dont_inherit=True)
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                return False
    return True


def _is_barrier(stmt: cst.BaseStatement) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and not stmt.leading_lines and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Pass))
