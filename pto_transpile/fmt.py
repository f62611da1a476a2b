"""Formatting of generated statements: like the file around them.

Generated code is built as text and parsed by libcst, so it must already carry the final
indentation of continuation lines. Long calls are wrapped one argument per line, the way
black would, when they would pass the file's own line-length limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst


@dataclass(frozen=True)
class Style:
    indent: str  #: one indentation level, e.g. four spaces
    quote: str  #: the file's dominant string quote
    max_line: int  #: wrap generated lines longer than this

    @classmethod
    def of(cls, module: cst.Module, text: str) -> "Style":
        doubles = len(re.findall(r'(?<![\w\'"])"[^"\n]', text))
        singles = len(re.findall(r"(?<![\w'\"])'[^'\n]", text))
        longest = max((len(line) for line in text.splitlines()), default=0)
        indent = module.default_indent if module.default_indent.strip() == "" else "    "
        return cls(indent=indent, quote="'" if singles > doubles else '"', max_line=max(100, longest))

    def string(self, value: str) -> str:
        return f"{self.quote}{value}{self.quote}"


def call(func: str, args: list[str], column: int, style: Style, prefix: str = "") -> str:
    """`prefix + func(args)`, wrapped one argument per line when too long at `column`.

    Continuation lines are indented relative to the statement: libcst adds the indentation
    of the block the statement lands in.
    """
    flat = f"{prefix}{func}({', '.join(args)})"
    if column + len(flat) <= style.max_line or not args:
        return flat
    body = "".join(f"{style.indent}{a},\n" for a in args)
    return f"{prefix}{func}(\n{body})"


def statement(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code + "\n")
