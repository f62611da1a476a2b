"""Before libcst sees a text: its limits, and where its top-level statements lie.

libcst parses in native code that recurses once per nesting level: a few thousand nested
brackets, or a sum of a few thousand terms, overflow the C stack and kill the whole
process (a segfault that no `except` can catch). Its code generation and visitors recurse
in Python and raise RecursionError after a few hundred levels. So Python's own parser
(`ast`, which refuses such input with an exception) reads the text first, and a tree
nesting deeper than `MAX_DEPTH` is refused before libcst is given it: indented blocks,
brackets (two tree levels each: the display and its element) and operators chained within
an element (`a + b + c` nests one level per `+`). Anything it over-counts only errs on the
safe side. Python's compiler then checks the tree, so what only the compiler refuses (a
duplicate parameter, `break` outside a loop) is known before anything is analysed.

The same tree gives where each top-level statement starts and ends, which names it
mentions and the file's first indentation (`Layout`): enough to decide which statements
the analysis needs parsed (`partial.py`).
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field
from types import CodeType

#: Characters of text read (about 25,000 lines of kernel code).
MAX_CHARS = 1_000_000
#: Deepest nesting accepted. Python itself refuses 200 nested brackets; libcst's code
#: generation fails near 450 chained operators or 200 nested lists.
MAX_DEPTH = 200

_NEWLINE = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """The lines of `text` as Python counts them, without their ends: a line ends at `\r\n`,
    `\r` or `\n` only, where `str.splitlines` also ends one at a form feed, U+2028, U+0085,
    U+001C and others (probe h131: a report showed the line three before the one it named)."""
    lines = _NEWLINE.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


_INDENT = re.compile(r"[ \t\f]*")
_WORD = re.compile(r"[^\W\d]\w*")
_SPACE = frozenset(" \t\f\r\n\\")
#: Expressions written between brackets: two tree levels each, as a display and its element.
_BRACKETED = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp,
              ast.GeneratorExp, ast.Call, ast.Subscript)
#: Fields of a syntax tree node that hold identifiers (dotted for `import a.b`).
_IDENTIFIERS = ("id", "attr", "name", "arg", "asname", "module", "names", "kwd_attrs", "rest")
#: Fields of a compound statement that hold an indented block.
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
#: What Python's tokenizer says of brackets nested past its own limit.
_TOO_MANY_BRACKETS = "too many nested parentheses"


class TooComplex(Exception):
    """The text is beyond what the parser can take safely (message, 1-based line and column)."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


@dataclass
class Layout:
    """The top-level statements of a text. Statement i owns the text `bounds[i]:bounds[i + 1]`:
    its leading blank and comment lines, then its code up to the end of its last line of
    code; `bounds[-1]:` is the trailing text after the last one. Statements that share a
    line (`x = 1; y = 2`) are one."""

    statements: list[list[ast.stmt]] = field(default_factory=list)  #: the syntax tree of each
    bounds: list[int] = field(default_factory=lambda: [0])
    lines: list[int] = field(default_factory=lambda: [1])  #: 1-based line of each bound
    heads: list[int] = field(default_factory=list)  #: offset of each statement's own first line (below decorators)
    first_indent: str = "    "  #: whitespace of the first indented line (libcst's default indentation)
    #: the compiled body of each top-level def or class, by (name, first line)
    bodies: dict[tuple[str, int], CodeType] = field(default_factory=dict, repr=False)
    _names: dict[int, frozenset[str]] = field(default_factory=dict, repr=False)

    @property
    def count(self) -> int:
        return len(self.heads)

    def names(self, i: int) -> frozenset[str]:
        """The identifiers statement `i` mentions (each part of a dotted import too). A def's
        or class's body names them in its compiled code, read there; its decorators,
        defaults, annotations and bases from the tree."""
        found = self._names.get(i)
        if found is None:
            names: set[str] = set()
            for stmt in self.statements[i]:
                body = self.bodies.get((getattr(stmt, "name", ""), _first_line(stmt)))
                if body is None:
                    names.update(_identifiers([stmt]))
                else:
                    names.add(stmt.name)  # type: ignore[attr-defined]  # a def or class: bodies holds those
                    names.update(_code_names(body))
                    names.update(_identifiers(_header(stmt)))
            found = self._names[i] = frozenset(names)
        return found


def stored_names(trees: list[ast.stmt]) -> set[str]:
    """The names statements bind, at any depth (targets, imports, `for` and `with` names)."""
    out: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                out.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                out.update((a.asname or a.name).split(".")[0] for a in node.names)
    return out


#: The file name Python's parser is given: not a path it would read the file's lines from.
_NO_FILE = "<pto-transpile input>"


def read_layout(text: str) -> Layout:
    """The layout of `text`'s top-level statements. TooComplex when `text` is too large or
    nests too deeply to parse safely; SyntaxError (or ValueError, for a NUL byte) in
    Python's own words when Python's parser or compiler refuses it."""
    if len(text) > MAX_CHARS:
        raise TooComplex(f"the file has {len(text)} characters; more than {MAX_CHARS} are not parsed")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # warnings about the file's contents are not ours to print
            # (under a name no file has: given the file's, Python reads a line it places a syntax error on
            # again from the disk, BOM and all, and the column comes out 2 short on line 1: probe h231)
            tree = ast.parse(text, _NO_FILE)
            starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
            _check_depth(tree, text, starts)
            code = compile(tree, _NO_FILE, "exec", dont_inherit=True)
    except SyntaxError as err:
        if err.msg.startswith(_TOO_MANY_BRACKETS):
            raise TooComplex(_deep_message(), err.lineno or 1, err.offset or 1) from None
        raise
    except (RecursionError, MemoryError):
        raise TooComplex("it nests too deeply for Python's parser") from None
    layout = _layout(tree, text, starts)
    layout.bodies = {(body.co_name, body.co_firstlineno): body for body in code.co_consts if isinstance(body, CodeType)}
    return layout


def _layout(tree: ast.Module, text: str, starts: list[int]) -> Layout:
    layout = Layout()
    groups: list[list[ast.stmt]] = []
    for stmt in tree.body:
        if groups and _first_line(stmt) <= groups[-1][-1].end_lineno:  # type: ignore[operator]
            groups[-1].append(stmt)  # `x = 1; y = 2`: one line, one statement
        else:
            groups.append([stmt])
    for group in groups:
        head = group[0]
        layout.statements.append(group)
        layout.heads.append(starts[head.lineno - 1])
        end_line = group[-1].end_lineno or head.lineno
        layout.bounds.append(starts[end_line] if end_line < len(starts) else len(text))
        layout.lines.append(end_line + 1)
    first = min((found for group in groups for stmt in group if (found := _first_indented(stmt, text, starts))),
                default=None)
    if first is not None:
        layout.first_indent = first[1]
    return layout


def _first_line(stmt: ast.stmt) -> int:
    """The line a statement starts on: its first decorator's, for a decorated definition."""
    decorators = getattr(stmt, "decorator_list", None)
    return decorators[0].lineno if decorators else stmt.lineno


def _first_indented(stmt: ast.AST, text: str, starts: list[int]) -> tuple[int, str] | None:
    """(line, whitespace) of the first line in `stmt`'s blocks that starts with indentation
    and code: libcst takes the file's indentation from it. Only the first statement of a
    block can be that line (or a block nested in it, when it shares its header's line)."""
    found = []
    for name in _BLOCKS:
        for child in getattr(stmt, name, ())[:1]:
            first = child.pattern if isinstance(child, ast.match_case) else child
            if isinstance(child, ast.excepthandler):
                found.append(_first_indented(child, text, starts))
                continue
            start = starts[first.lineno - 1]
            white = _INDENT.match(text, start).group()  # type: ignore[union-attr]  # it matches "" too
            own_line = (text.startswith("case", start + len(white)) if isinstance(child, ast.match_case)
                        else len(white.encode("utf-8")) == first.col_offset)
            if white and own_line:
                found.append((first.lineno, white))
            else:
                found.append(_first_indented(child, text, starts))
    return min((f for f in found if f is not None), default=None)


def _check_depth(tree: ast.Module, text: str, starts: list[int]) -> None:
    """TooComplex at the first node deeper than MAX_DEPTH. The tree keeps no parentheses
    that only group, so those around an expression are counted from the text. A node nests
    at most one level per character it spans, so a short one is not entered: most
    statements are passed over whole."""
    offset = _Offsets(text, starts)
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (ast.expr, ast.stmt)):
            decorators: list[ast.expr] = getattr(node, "decorator_list", None) or []  # they stand above a def
            first = decorators[0] if decorators else node
            start = offset(first.lineno, first.col_offset)
            end = offset(node.end_lineno, node.end_col_offset)  # type: ignore[arg-type]
            if isinstance(node, ast.expr):
                depth += (2 if isinstance(node, _BRACKETED) else 1) + 2 * _parentheses(text, start, end)
                if depth > MAX_DEPTH:
                    raise TooComplex(_deep_message(), node.lineno, start - starts[node.lineno - 1] + 1)
            elif any(getattr(node, name, None) for name in _BLOCKS):
                depth += 1
            if depth + end - start <= MAX_DEPTH:
                continue
        stack += [(child, depth) for child in ast.iter_child_nodes(node)]


class _Offsets:
    """Character offset in the text of a (line, UTF-8 byte column) position of the tree."""

    def __init__(self, text: str, starts: list[int]):
        self.text, self.starts, self.ascii = text, starts, text.isascii()

    def __call__(self, line: int, column: int) -> int:
        start = self.starts[line - 1]
        if self.ascii:
            return start + column
        return start + len(self.text[start:start + column].encode("utf-8")[:column].decode("utf-8", "replace"))


def _parentheses(text: str, start: int, end: int) -> int:
    """Pairs of parentheses right around `text[start:end]` (a call's own may count too: on
    the safe side)."""
    pairs, before, after = 0, start - 1, end
    while True:
        while before >= 0 and text[before] in _SPACE:
            before -= 1
        while after < len(text) and text[after] in _SPACE:
            after += 1
        if before < 0 or after >= len(text) or text[before] != "(" or text[after] != ")":
            return pairs
        pairs, before, after = pairs + 1, before - 1, after + 1


def _deep_message() -> str:
    return f"expression nested more than {MAX_DEPTH} deep (brackets and chained operators)"


def _header(stmt: ast.stmt) -> list[ast.AST]:
    """What a def or class statement runs where it stands: decorators, defaults, annotations, bases."""
    if isinstance(stmt, ast.ClassDef):
        return [*stmt.decorator_list, *stmt.bases, *stmt.keywords]
    assert isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
    return [*stmt.decorator_list, stmt.args, *([stmt.returns] if stmt.returns else [])]


def _code_names(code: CodeType):
    """Every name compiled code and the code nested in it use: globals, attributes, locals,
    and the identifiers of annotations kept as strings (`from __future__ import annotations`;
    the docstring is no annotation)."""
    yield from code.co_names
    yield from code.co_varnames
    yield from code.co_cellvars
    yield from code.co_freevars
    for i, inner in enumerate(code.co_consts):
        if isinstance(inner, CodeType):
            yield from _code_names(inner)
        elif isinstance(inner, str) and i > 0:
            yield from _WORD.findall(inner)
        elif isinstance(inner, tuple):
            yield from (word for item in inner if isinstance(item, str) for word in _WORD.findall(item))


def _identifiers(nodes: list):
    for root in nodes:
        for node in ast.walk(root):
            for name in _IDENTIFIERS:
                value = getattr(node, name, None)
                if isinstance(value, str):
                    yield from value.split(".")
                elif isinstance(value, list):
                    yield from (v for v in value if isinstance(v, str))
