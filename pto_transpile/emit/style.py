"""Formatting of generated statements: like the file around them.

Generated code is written as text and read into libcst nodes (`nodes.py`), so it must
already carry the final indentation of continuation lines. Long calls are wrapped one
argument per line, the way black would, when they would pass the file's own line-length
limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from pto_transpile.emit import nodes
from pto_transpile.read.printing import code_of


@dataclass(frozen=True)
class Style:
    indent: str  #: one indentation level, e.g. four spaces
    quote: str  #: the file's dominant string quote
    max_line: int  #: wrap generated lines longer than this

    @classmethod
    def of(cls, module: cst.Module, text: str) -> Style:
        doubles = _count_opening(_DOUBLE, text)
        singles = _count_opening(_SINGLE, text)
        longest = max((len(line) for line in text.splitlines()), default=0)
        indent = module.default_indent if module.default_indent.strip() == "" else "    "
        return cls(indent=indent, quote="'" if singles > doubles else '"', max_line=max(100, longest))

    def string(self, value: str) -> str:
        return f"{self.quote}{value}{self.quote}"


#: a quote and the character after it (`_count_opening`)
_DOUBLE = re.compile(r'"[^"\n]')
_SINGLE = re.compile(r"'[^'\n]")
#: not after a name character or a quote: where a quote opens a string
_OPENS = re.compile(r"(?<![\w'\"])")


def _count_opening(pattern: re.Pattern, text: str) -> int:
    """How many matches `re.findall` finds of `_OPENS` + `pattern` (a quote opening a string):
    the leftmost match of `pattern` from the position reached, counted where the look-behind
    holds at its start, else searched again from the next position (the look-behind consumes
    nothing: where it holds, the rest matches as `pattern` does). A pattern that starts with
    a look-behind is tried at every position; one that starts with a quote is not."""
    count = pos = 0
    while True:
        m = pattern.search(text, pos)
        if m is None:
            return count
        if _OPENS.match(text, m.start()):
            count += 1
            pos = m.end()
        else:
            pos = m.start() + 1


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
    return nodes.statement(code + "\n")


# -- splicing the user's expressions into generated statements ----------------------------

#: How tightly an expression binds (higher binds tighter); names, literals, calls,
#: subscripts and attributes (not listed) bind tightest. Python's precedence table.
_BINDING: dict[type, int] = {
    cst.Tuple: 0, cst.GeneratorExp: 0, cst.Yield: 0, cst.NamedExpr: 0, cst.Lambda: 1, cst.IfExp: 2,
    cst.Comparison: 6, cst.Await: 16,
}
_BOOLEAN = {cst.Or: 3, cst.And: 4}
_BINARY = {
    cst.BitOr: 7, cst.BitXor: 8, cst.BitAnd: 9, cst.LeftShift: 10, cst.RightShift: 10, cst.Add: 11,
    cst.Subtract: 11, cst.Multiply: 12, cst.MatrixMultiply: 12, cst.Divide: 12, cst.FloorDivide: 12,
    cst.Modulo: 12, cst.Power: 15,
}
_ATOM = 99
#: What a position in generated code needs: an operand of `<` binds at least as tightly as
#: `|`; a value (assigned, or a subscript index) may be anything but a bare tuple, walrus,
#: `yield` or unparenthesised generator.
COMPARISON_OPERAND = 7
VALUE = 1


def binding(expr: cst.BaseExpression) -> int:
    if isinstance(expr, cst.BooleanOperation):
        return _BOOLEAN[type(expr.operator)]
    if isinstance(expr, cst.BinaryOperation):
        return _BINARY[type(expr.operator)]
    if isinstance(expr, cst.UnaryOperation):
        return 5 if isinstance(expr.operator, cst.Not) else 14
    return _BINDING.get(type(expr), _ATOM)


def operand(expr: cst.BaseExpression, needs: int) -> cst.BaseExpression:
    """The user's own `expr` node, parenthesised when the position it is spliced into
    would otherwise parse differently (`n_iter or N` as an operand of `<`), or when it spans
    lines (valid only inside brackets)."""
    if expr.lpar:
        return expr
    if binding(expr) >= needs and "\n" not in code_of(expr):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def assign(target: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    """`target = value`, with the user's `value` node spliced in as it is."""
    target_node = nodes.expression(target)
    if not isinstance(target_node, cst.BaseAssignTargetExpression):
        raise ValueError(f"`{target}` cannot be assigned to")
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target_node)],
                                               operand(value, VALUE))])
