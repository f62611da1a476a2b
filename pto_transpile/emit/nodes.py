"""Generated code as libcst nodes, without libcst's parser.

The emitter writes each generated statement as text in a fixed style (`fmt`), and libcst's
parser turned that text into nodes at about a millisecond a statement: a third of a demo
transpile. The statements are few shapes of a small grammar (assignments, calls, the
`with`/`if`/`for` blocks around them), so this reads them directly into the very nodes the
parser would build, whitespace included (tests/emit/test_nodes.py compares the two on every
shape). Text outside that grammar or style goes to libcst's parser unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

_TOKEN = re.compile(r"(?P<space> *)(?:(?P<name>[A-Za-z_]\w*)|(?P<number>\d+(?:\.\d+)?)"
                    r"|(?P<string>\"[^\"\\\n]*\"|'[^'\\\n]*')"
                    r"|(?P<newline>\n[ \t]*)|(?P<op>[()\[\].,:=%+<*-]))")
_BINARY: dict[str, Callable[..., cst.BaseBinaryOp]] = {
    "+": cst.Add, "-": cst.Subtract, "*": cst.Multiply, "%": cst.Modulo,
}
_EMPTY = cst.SimpleWhitespace("")
_SPACE = cst.SimpleWhitespace(" ")
_NEWLINE = cst.TrailingWhitespace(_EMPTY, None, cst.Newline(None))
_DOT = cst.Dot(_EMPTY, _EMPTY)
_EQUAL = cst.AssignEqual(_EMPTY, _EMPTY)
_COMMA = cst.Comma(_EMPTY, _SPACE)
_LPAR, _RPAR = cst.LeftParen(_EMPTY), cst.RightParen(_EMPTY)
_LSQB, _RSQB = cst.LeftSquareBracket(_EMPTY), cst.RightSquareBracket(_EMPTY)


class _Unsupported(Exception):
    """The text is not in the grammar read here: libcst's parser takes it."""


def statement(code: str) -> cst.BaseStatement:
    """The node `cst.parse_statement(code)` returns (`code` ends with a newline)."""
    try:
        return _Reader(code).statement()
    except _Unsupported:
        return cst.parse_statement(code)


def expression(code: str) -> cst.BaseExpression:
    """The node `cst.parse_expression(code)` returns."""
    try:
        reader = _Reader(code)
        expr = reader.expression()
        reader.end()
        return expr
    except _Unsupported:
        return cst.parse_expression(code)


class _Reader:
    def __init__(self, code: str):
        self.tokens: list[tuple[str, str, str]] = []  #: (kind, text, spaces before it)
        pos = 0
        while pos < len(code):
            m = _TOKEN.match(code, pos)
            if m is None or m.end() == pos or m.lastgroup is None:
                raise _Unsupported(code)
            kind = m.lastgroup
            self.tokens.append((kind, m.group(kind), m.group("space")))
            pos = m.end()
        self.i = 0

    # tokens --------------------------------------------------------------------------------
    def peek(self, offset: int = 0) -> tuple[str, str, str]:
        i = self.i + offset
        return self.tokens[i] if i < len(self.tokens) else ("end", "", "")

    def take(self, text: str | None = None, kind: str | None = None, space: str = "") -> str:
        k, t, s = self.peek()
        if (text is not None and t != text) or (kind is not None and k != kind) or s != space:
            raise _Unsupported(t)
        self.i += 1
        return t

    def at(self, text: str, space: str = "") -> bool:
        _, t, s = self.peek()
        return t == text and s == space

    def end(self) -> None:
        if self.i != len(self.tokens):
            raise _Unsupported("trailing text")

    # statements ----------------------------------------------------------------------------
    def statement(self) -> cst.BaseStatement:
        kind, word, _ = self.peek()
        if kind == "name" and word in ("if", "with", "for"):
            stmt = getattr(self, f"_{word}")()
        else:
            stmt = self.simple()
        self.end()
        return stmt

    def simple(self) -> cst.SimpleStatementLine:
        first = self.expression()
        if self.at("=", " "):
            self.take("=", space=" ")
            value = self.expression(space=" ")
            small: cst.BaseSmallStatement = cst.Assign([cst.AssignTarget(self.target(first), _SPACE, _SPACE)], value)
        elif isinstance(first, cst.Name) and first.value == "pass":
            small = cst.Pass()
        else:
            small = cst.Expr(first)
        self.line_end()
        return cst.SimpleStatementLine([small], [], _NEWLINE)

    def line_end(self) -> None:
        kind, text, space = self.peek()
        if kind != "newline" or text != "\n" or space:
            raise _Unsupported("line end")
        self.i += 1

    def _if(self) -> cst.If:
        self.take("if")
        test = self.expression(space=" ")
        body = self._indented_body()
        orelse = None
        if self.at("else"):
            self.take("else")
            orelse = cst.Else(self._indented_body(), [], _EMPTY)
        return cst.If(test, body, orelse, [], _SPACE, _EMPTY)

    def _with(self) -> cst.With:
        self.take("with")
        item = self.expression(space=" ")
        return cst.With([cst.WithItem(item)], self._indented_body(), None, [], cst.MaybeSentinel.DEFAULT,
                        cst.MaybeSentinel.DEFAULT, _SPACE, _EMPTY)

    def _for(self) -> cst.For:
        self.take("for")
        target = self.target(self.expression(space=" "))
        self.take("in", space=" ")
        iterable = self.expression(space=" ")
        return cst.For(target, iterable, self._indented_body(), None, None, [], _SPACE, _SPACE, _SPACE, _EMPTY)

    def target(self, expr: cst.BaseExpression) -> cst.BaseAssignTargetExpression:
        """`expr` where a name is bound (`x = ...`, `for x in ...`)."""
        if not isinstance(expr, cst.BaseAssignTargetExpression):
            raise _Unsupported("assignment target")
        return expr

    def _indented_body(self) -> cst.IndentedBlock:
        """`:`, a newline and one indented simple statement (the templates' `pass` or line)."""
        self.take(":")
        kind, text, space = self.peek()
        if kind != "newline" or len(text) < 2 or space:
            raise _Unsupported("block")
        self.i += 1
        return cst.IndentedBlock([self.simple()], _NEWLINE, None, [])

    # expressions ---------------------------------------------------------------------------
    def expression(self, space: str = "") -> cst.BaseExpression:
        left = self.sum(space)
        if self.at("<", " "):
            self.take("<", space=" ")
            right = self.sum(" ")
            return cst.Comparison(left, [cst.ComparisonTarget(cst.LessThan(_SPACE, _SPACE), right)])
        return left

    def sum(self, space: str) -> cst.BaseExpression:
        left = self.operand(space)
        while True:
            _, op, s = self.peek()
            if op not in _BINARY or s != " ":
                return left
            self.i += 1
            right = self.operand(" ")
            left = cst.BinaryOperation(left, _BINARY[op](_SPACE, _SPACE), right)

    def operand(self, space: str) -> cst.BaseExpression:
        kind, text, s = self.peek()
        if s != space:
            raise _Unsupported(text)
        self.i += 1
        if kind == "name":
            node: cst.BaseExpression = cst.Name(text)
        elif kind == "number":  # `0.0`: a float field's initial value in the ctx ring (`pl.const(0.0, ...)`)
            node = cst.Float(text) if "." in text else cst.Integer(text)
        elif kind == "string":
            node = cst.SimpleString(text)
        elif text == "(":
            inner = self.expression()
            self.take(")")
            node = inner.with_changes(lpar=[_LPAR], rpar=[_RPAR])
        elif text == "[":
            node = self.list()
        else:
            raise _Unsupported(text)
        return self.trailers(node)

    def list(self) -> cst.List:
        elements: list[cst.Element] = []
        while not self.at("]"):
            value = self.expression(" " if elements else "")
            comma: cst.Comma | cst.MaybeSentinel = cst.MaybeSentinel.DEFAULT
            if self.at(","):
                self.take(",")
                comma = _COMMA
            elements.append(cst.Element(value, comma))
            if comma is cst.MaybeSentinel.DEFAULT:
                break
        self.take("]")
        if elements and elements[-1].comma is not cst.MaybeSentinel.DEFAULT:
            raise _Unsupported("trailing comma")
        return cst.List(elements, _LSQB, _RSQB)

    def trailers(self, node: cst.BaseExpression) -> cst.BaseExpression:
        while True:
            if self.at("."):
                self.take(".")
                node = cst.Attribute(node, cst.Name(self.take(kind="name")), _DOT)
            elif self.at("["):
                self.take("[")
                index = self.expression()
                self.take("]")
                node = cst.Subscript(node, [cst.SubscriptElement(cst.Index(index))], _LSQB, _RSQB)
            elif self.at("("):
                self.take("(")
                node = self.call(node)
            else:
                return node

    def call(self, func: cst.BaseExpression) -> cst.Call:
        kind, text, space = self.peek()
        if kind == "newline":  # one argument per line, each ending with a comma
            if space or len(text) < 2:
                raise _Unsupported("wrapped call")
            indent = text[1:]
            self.i += 1
            args = []
            while True:
                arg = self.argument("")
                self.take(",")
                kind, text, space = self.peek()
                if kind != "newline" or space or text not in ("\n", "\n" + indent):
                    raise _Unsupported("wrapped call")
                self.i += 1
                last = text == "\n"
                args.append(arg.with_changes(comma=cst.Comma(_EMPTY, _wrap("" if last else indent))))
                if last:
                    break
            self.take(")")
            return cst.Call(func, args, whitespace_before_args=_wrap(indent))
        args = []
        while not self.at(")"):
            arg = self.argument(" " if args else "")
            if self.at(","):
                self.take(",")
                arg = arg.with_changes(comma=_COMMA)
                args.append(arg)
                continue
            args.append(arg)
            break
        self.take(")")
        if args and args[-1].comma is not cst.MaybeSentinel.DEFAULT:
            raise _Unsupported("trailing comma")
        return cst.Call(func, args)

    def argument(self, space: str) -> cst.Arg:
        kind, text, s = self.peek()
        _, after, after_space = self.peek(1)
        if kind == "name" and after == "=" and not after_space and s == space:
            self.i += 2
            return cst.Arg(self.expression(), keyword=cst.Name(text), equal=_EQUAL)
        return cst.Arg(self.expression(space))


def _wrap(indent: str) -> cst.ParenthesizedWhitespace:
    """A line break inside brackets, the next line indented by `indent` past the statement."""
    return cst.ParenthesizedWhitespace(_NEWLINE, [], True, cst.SimpleWhitespace(indent))
