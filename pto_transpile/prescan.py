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
"""

from __future__ import annotations

import re

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


class TooComplex(Exception):
    """The text is beyond what the parser can take safely (message, 1-based line and column)."""

    def __init__(self, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def check_limits(text: str) -> None:
    """TooComplex when `text` is too large or nests too deeply to parse safely."""
    if len(text) > MAX_CHARS:
        raise TooComplex(f"the file has {len(text)} characters; more than {MAX_CHARS} are not parsed")
    _Scanner(text).run()


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.line, self.line_start = 1, 0
        self.indents = [0]  #: indentation widths of the open blocks
        self.brackets: list[int] = []  #: operators chained in the current element of each open bracket
        self.statement_ops = 0  #: operators chained outside brackets in the current statement
        self.after_string = False

    def depth(self) -> int:
        return len(self.indents) - 1 + self.statement_ops + sum(2 + ops for ops in self.brackets)

    def run(self) -> None:
        for m in _TOKENS.finditer(self.text):
            kind = m.lastgroup
            if kind == "string":
                self.chain(m, bool(self.after_string))
                if any(c in "fFtT" for c in m.group("prefix")):
                    self.f_string(m)
                self.newlines(m)
                self.after_string = True
                continue
            self.after_string = False
            if kind == "name":
                if m.group() in _KEYWORD_OPERATORS:
                    self.chain(m, True)
            elif kind == "operator":
                self.chain(m, True)
            elif kind == "open":
                self.brackets.append(0)
                self.check(m)
            elif kind == "close":
                if self.brackets:
                    self.brackets.pop()
            elif kind == "separator":
                if self.brackets:
                    self.brackets[-1] = 0
                else:
                    self.statement_ops = 0
            elif kind == "continuation":
                self.newlines(m)
            elif kind == "newline":
                self.newlines(m)
                if not self.brackets:
                    self.statement_ops = 0
                    self.indent(m.end())

    def chain(self, m: re.Match, nests: bool) -> None:
        if not nests:
            return
        if self.brackets:
            self.brackets[-1] += 1
        else:
            self.statement_ops += 1
        self.check(m)

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
        white = _INDENT.match(self.text, pos).group()
        after = self.text[pos + len(white):pos + len(white) + 1]
        if after in ("", "\n", "\r", "#", "\\"):
            return  # blank or comment-only lines do not indent
        width = len(white.expandtabs(8))
        while width < self.indents[-1]:
            self.indents.pop()
        if width > self.indents[-1]:
            self.indents.append(width)
            if len(self.indents) - 1 > MAX_DEPTH:
                raise TooComplex(f"blocks nest more than {MAX_DEPTH} deep", self.line, 1)

    def newlines(self, m: re.Match) -> None:
        count = m.group().count("\n") + m.group().count("\r") - m.group().count("\r\n")
        if count:
            self.line += count
            self.line_start = max(m.group().rfind("\n"), m.group().rfind("\r")) + m.start() + 1

    def check(self, m: re.Match) -> None:
        depth = self.depth()
        if depth > MAX_DEPTH:
            self.fail(m, depth)

    def fail(self, m: re.Match, depth: int) -> None:
        raise TooComplex(f"expression nested more than {MAX_DEPTH} deep (brackets and chained operators)",
                         self.line, m.start() - self.line_start + 1)


def too_complex_diagnostic(path: str, exc: BaseException):
    """The PTO097 diagnostic for a TooComplex (or a RecursionError that got past the limits)."""
    from pto_transpile.diagnostics import Diagnostic
    from pto_transpile.rules import registry

    rule = registry()["PTO097"]
    if isinstance(exc, TooComplex):
        detail, line, column = exc.message, exc.line, exc.column
    else:
        detail, line, column = "it nests too deeply for Python's recursion limit", 1, 1
    message, hint = rule.format({"detail": detail})
    return Diagnostic(rule.code, rule.name, rule.severity, path, line, column, line, column + 1, message, hint)
