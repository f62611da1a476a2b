"""Limits checked before libcst sees the text: its size, and how deeply it nests.

libcst parses in native code that recurses once per nesting level: a few thousand nested
brackets, or a sum of a few thousand terms, overflow the C stack and kill the whole
process (a segfault that no `except` can catch). Its code generation and visitors recurse
in Python and raise RecursionError after a few hundred levels. One cheap pass over the text
measures the nesting first and refuses input beyond a limit far above any real kernel and
well below where those tools break.

The pass reads the text as Python's tokenizer does (strings and comments are not code),
with one exception: the replacement fields of f-strings are code libcst parses, so brackets
inside f-strings count. It measures, at every point, the depth a syntax tree would have:
indented blocks, open brackets (two tree levels each: the display and its element), and
operators chained within one element (`a + b + c` nests one level per `+`; a comma starts
a new element). Anything it over-counts only errs on the safe side.

The same pass notes where each top-level statement starts, which names it mentions and the
file's first indentation (`Layout`): enough to decide which statements the analysis needs
parsed (`partial.py`) without a second pass over the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pto_transpile import codes

#: Characters of text read (about 25,000 lines of kernel code).
MAX_CHARS = 1_000_000
#: Deepest nesting accepted. Python itself refuses 200 nested brackets; libcst's code
#: generation fails near 450 chained operators or 200 nested lists.
MAX_DEPTH = 200

_TOKENS = re.compile(r"""
    (?P<string>(?P<prefix>[rRbBuUfFtT]{0,2})(?:'''(?:[^\\]|\\.)*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"
                                            |'(?:[^\\'\r\n]|\\.)*'|"(?:[^\\"\r\n]|\\.)*"))
  | (?P<name>[^\W\d]\w*)
  | (?P<comment>\#[^\r\n]*)
  | (?P<continuation>\\\r?\n)
  | (?P<newline>\r\n|\r|\n)
  | (?P<number>\d[\w.]*)
  | (?P<open>[(\[{])
  | (?P<close>[)\]}])
  | (?P<separator>[,;])
  | (?P<operator>\*\*|//|<<|>>|[-+*/%@&|^~.])
""", re.VERBOSE | re.DOTALL)
_INDENT = re.compile(r"[ \t\f]*")
#: Keywords that nest an expression one level (`a and b`, `x if c else y`, `lambda: ...`).
_KEYWORD_OPERATORS = frozenset({"and", "or", "not", "if", "else", "lambda", "await", "for", "in", "is", "yield"})
_F_BRACKETS = re.compile(r"[(\[{)\]}]")
_NAME = re.compile(r"[^\W\d]\w*")
#: Lines at column 0 that continue the statement above them rather than start one.
_CONTINUES = re.compile(r"(?:else|elif|except|finally)(?![\w])")


#: A line that holds no code: blank, or only a comment.
_NO_CODE = re.compile(r"[ \t\f]*(?:#[^\r\n]*)?")


@dataclass
class Layout:
    """The top-level statements of a text as the tokenizer sees them. Statement i owns the
    text `bounds[i]:bounds[i + 1]`: its leading blank and comment lines, then its code up to
    the end of its last line of code; `bounds[-1]:` is the trailing text after the last one."""

    bounds: list[int] = field(default_factory=lambda: [0])
    lines: list[int] = field(default_factory=lambda: [1])  #: 1-based line of each bound
    heads: list[int] = field(default_factory=list)  #: offset of each statement's own first line (below decorators)
    names: list[set] = field(default_factory=list)  #: the identifiers each statement mentions
    first_indent: str = "    "  #: whitespace of the first indented line (libcst's default indentation)

    @property
    def count(self) -> int:
        return len(self.heads)


class TooComplex(Exception):
    """The text is beyond what the parser can take safely (message, 1-based line and column)."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def check_limits(text: str) -> Layout:
    """TooComplex when `text` is too large or nests too deeply to parse safely; else the
    layout of its top-level statements."""
    if len(text) > MAX_CHARS:
        raise TooComplex(f"the file has {len(text)} characters; more than {MAX_CHARS} are not parsed")
    scanner = _Scanner(text)
    scanner.run()
    if scanner.layout.heads:
        scanner.end_statement(len(text), scanner.line)
    return scanner.layout


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.line, self.line_start = 1, 0
        self.indents = [0]  #: indentation widths of the open blocks
        self.brackets: list[int] = []  #: operators chained in the current element of each open bracket
        self.statement_ops = 0  #: operators chained outside brackets in the current statement
        self.layout = Layout()
        self.names: set = set()  #: names of the current top-level statement (before the first: dropped)
        self.decorator = False  #: the last top-level line was a decorator: the `def` below continues it
        self.indented = False  #: an indented line was seen (the first one sets `layout.first_indent`)

    def depth(self) -> int:
        return len(self.indents) - 1 + self.statement_ops + sum(2 + ops for ops in self.brackets)

    def run(self) -> None:
        """One pass over the tokens. The depth is kept up to date as it changes (`open`: the
        brackets' share, 2 plus the operators chained in each one's current element), so a
        check costs nothing; this loop sees every token of the file."""
        if self.text[:1] not in ("", " ", "\t", "\f", "\n", "\r", "#", "\\"):
            self.top_level(0)
        names = self.names
        brackets = self.brackets
        keywords = _KEYWORD_OPERATORS
        open_ = 0  # sum(2 + ops for ops in brackets)
        after_string = False
        for m in _TOKENS.finditer(self.text):
            kind = m.lastgroup
            if kind == "name":
                after_string = False
                word = m.group()
                names.add(word)
                if word not in keywords:
                    continue
                kind = "operator"  # `and`, `if`, `lambda`, ...: nests like an operator
            elif kind == "string":
                if after_string:  # implicit concatenation chains like an operator
                    if brackets:
                        brackets[-1] += 1
                        open_ += 1
                    else:
                        self.statement_ops += 1
                    self._check(m, open_)
                if any(c in "fFtT" for c in m.group("prefix")):
                    self.f_string(m)
                    names.update(_NAME.findall(m.group()))  # the replacement fields are code
                self.newlines(m)
                after_string = True
                continue
            after_string = False
            if kind == "operator":
                if brackets:
                    brackets[-1] += 1
                    open_ += 1
                else:
                    self.statement_ops += 1
                self._check(m, open_)
            elif kind == "open":
                brackets.append(0)
                open_ += 2
                self._check(m, open_)
            elif kind == "close":
                if brackets:
                    open_ -= 2 + brackets.pop()
            elif kind == "separator":
                if brackets:
                    open_ -= brackets[-1]
                    brackets[-1] = 0
                else:
                    self.statement_ops = 0
            elif kind == "continuation":
                self.newlines(m)
            elif kind == "newline":
                self.newlines(m)
                if not brackets:
                    self.statement_ops = 0
                    self.indent(m.end())
                    names = self.names

    def _check(self, m: re.Match, open_: int) -> None:
        depth = len(self.indents) - 1 + self.statement_ops + open_
        if depth > MAX_DEPTH:
            self.fail(m, depth)

    def f_string(self, m: re.Match) -> None:
        """Brackets in an f-string's replacement fields nest like code; literal closers never
        lower the count below where the string began."""
        base = self.depth()
        level = peak = 0
        for b in _F_BRACKETS.finditer(m.group()):
            level = level + 1 if b.group() in "([{" else max(0, level - 1)
            peak = max(peak, level)
        if base + 2 * peak > MAX_DEPTH:
            self.fail(m, base + 2 * peak)

    def indent(self, pos: int) -> None:
        white = _INDENT.match(self.text, pos).group()  # type: ignore[union-attr]  # it matches "" too
        after = self.text[pos + len(white):pos + len(white) + 1]
        if after in ("", "\n", "\r", "#", "\\"):
            return  # blank or comment-only lines do not indent
        width = len(white.expandtabs(8))
        if width == 0:
            self.top_level(pos)
        elif not self.indented:
            self.indented = True
            self.layout.first_indent = white
        while width < self.indents[-1]:
            self.indents.pop()
        if width > self.indents[-1]:
            self.indents.append(width)
            if len(self.indents) - 1 > MAX_DEPTH:
                raise TooComplex(f"blocks nest more than {MAX_DEPTH} deep", self.line, 1)

    def top_level(self, pos: int) -> None:
        """A logical line at column 0: a new statement, unless it continues the one above
        (`else:`, `except:`, ... or the `def` under a decorator)."""
        layout = self.layout
        if layout.heads and _CONTINUES.match(self.text, pos) is not None:
            return
        if layout.heads and self.decorator:
            layout.heads[-1] = pos
        else:
            if layout.heads:
                self.end_statement(pos, self.line)
            self.names = set()
            layout.heads.append(pos)
            layout.names.append(self.names)
        self.decorator = self.text.startswith("@", pos)

    def end_statement(self, pos: int, line: int) -> None:
        """Close the last statement before `pos` (on `line`): it ends with its last line of
        code, and the blank and comment lines up to `pos` lead the next statement."""
        text, end = self.text, pos
        while end > 0:
            stop = end - 2 if text.startswith("\r\n", end - 2) else end - 1
            start = max(text.rfind("\n", 0, stop), text.rfind("\r", 0, stop)) + 1
            if _NO_CODE.fullmatch(text, start, stop) is None:
                break
            end, line = start, line - 1
        self.layout.bounds.append(end)
        self.layout.lines.append(line)

    def newlines(self, m: re.Match) -> None:
        count = m.group().count("\n") + m.group().count("\r") - m.group().count("\r\n")
        if count:
            self.line += count
            self.line_start = max(m.group().rfind("\n"), m.group().rfind("\r")) + m.start() + 1

    def fail(self, m: re.Match, depth: int) -> None:
        raise TooComplex(f"expression nested more than {MAX_DEPTH} deep (brackets and chained operators)",
                         self.line, m.start() - self.line_start + 1)


def too_complex_diagnostic(path: str, exc: BaseException):
    """The PTO097 diagnostic for a TooComplex (or a RecursionError that got past the limits)."""
    from pto_transpile.rules import registry

    rule = registry()[codes.INPUT_TOO_COMPLEX]
    if isinstance(exc, TooComplex):
        detail, line, column = exc.message, exc.line, exc.column
    else:
        detail, line, column = "it nests too deeply for Python's recursion limit", 1, 1
    return rule.diagnostic({"detail": detail}, path, line, column)
