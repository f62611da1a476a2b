"""libcst's code generation, faster.

libcst prints a node through three method calls and, for every expression, a generator-based
context manager that records positions plain code generation never reads; printing a
generated FlashAttention kernel that way costs about as much as a tenth of parsing the file.
The printer here writes the same tokens for the node types generated kernels are made of
(names, calls, operators, whitespace, simple statements, `with`/`if`/`for` blocks), each
following libcst's own `_codegen_impl` for that type, and hands any other node to libcst with
the indentation it is at. `tests/test_codegen.py` compares the two on every example, golden
file and generated kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState

_NOTHING = nullcontext()
_DEFAULT = cst.MaybeSentinel.DEFAULT


class _PlainState(CodegenState):
    """libcst's state without position bookkeeping (for the nodes handed to libcst)."""

    __slots__ = ()

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _NOTHING


class _Printer:
    def __init__(self, indent: str, newline: str):
        self.tokens: list[str] = []
        self.add = self.tokens.append
        self.indents: list[str] = []
        self.default_indent = indent
        self.newline = newline

    def node(self, n: cst.CSTNode) -> None:
        fn = _PRINT.get(type(n))
        if fn is None:
            self.libcst(n)
        else:
            fn(self, n)

    def libcst(self, n: cst.CSTNode, **kwargs) -> None:
        """`n` printed by libcst itself, at the current indentation."""
        state = _PlainState(default_indent=self.default_indent, default_newline=self.newline)
        state.indent_tokens = list(self.indents)
        n._codegen(state, **kwargs)
        self.tokens += state.tokens

    def comma(self, comma, default: bool, text: str = ", ") -> None:
        if comma is _DEFAULT:
            if default:
                self.add(text)
        elif type(comma) is cst.Comma:
            _op(self, comma)

    def semicolon(self, semicolon, default: bool) -> None:
        if semicolon is _DEFAULT:
            if default:
                self.add("; ")
        elif isinstance(semicolon, cst.Semicolon):
            self.node(semicolon)

    def lines(self, lines) -> None:
        for line in lines:
            self.node(line)


# -- whitespace and tokens -------------------------------------------------------------------------

def _value(p: _Printer, n) -> None:  # SimpleWhitespace, Comment
    p.add(n.value)


def _newline(p: _Printer, n: cst.Newline) -> None:
    p.add(p.newline if n.value is None else n.value)


def _trailing(p: _Printer, n: cst.TrailingWhitespace) -> None:
    p.add(n.whitespace.value)
    if n.comment is not None:
        p.add(n.comment.value)
    _newline(p, n.newline)


def _empty_line(p: _Printer, n: cst.EmptyLine) -> None:
    if n.indent:
        p.tokens += p.indents
    p.add(n.whitespace.value)
    if n.comment is not None:
        p.add(n.comment.value)
    _newline(p, n.newline)


def _parenthesized_whitespace(p: _Printer, n: cst.ParenthesizedWhitespace) -> None:
    _trailing(p, n.first_line)
    for line in n.empty_lines:
        _empty_line(p, line)
    if n.indent:
        p.tokens += p.indents
    p.add(n.last_line.value)


def _op(p: _Printer, n) -> None:  # one-token operators: `,`, `.`, `=`, `+`, ...
    p.node(n.whitespace_before)
    p.add(_TOKENS[type(n)])
    p.node(n.whitespace_after)


def _open(p: _Printer, n) -> None:  # `(`, `[`
    p.add(_TOKENS[type(n)])
    p.node(n.whitespace_after)


def _close(p: _Printer, n) -> None:  # `)`, `]`
    p.node(n.whitespace_before)
    p.add(_TOKENS[type(n)])


# -- expressions -----------------------------------------------------------------------------------

def _atom(p: _Printer, n) -> None:  # Name, Integer, Float, SimpleString
    if n.lpar:
        p.lines(n.lpar)
        p.add(n.value)
        p.lines(n.rpar)
    else:
        p.add(n.value)


def _parenthesized(body: Callable[[_Printer, Any], None]) -> Callable[[_Printer, Any], None]:
    """`body` inside the node's own parentheses (libcst's `_parenthesize`)."""
    def print_(p: _Printer, n) -> None:
        p.lines(n.lpar)
        body(p, n)
        p.lines(n.rpar)
    return print_


def _attribute(p: _Printer, n: cst.Attribute) -> None:
    p.node(n.value)
    _op(p, n.dot)
    p.node(n.attr)


def _call(p: _Printer, n: cst.Call) -> None:
    p.node(n.func)
    p.node(n.whitespace_after_func)
    p.add("(")
    p.node(n.whitespace_before_args)
    last = len(n.args) - 1
    for i, arg in enumerate(n.args):
        _arg(p, arg, i != last)
    p.add(")")


def _arg(p: _Printer, n: cst.Arg, default_comma: bool) -> None:
    p.add(n.star)
    p.node(n.whitespace_after_star)
    if n.keyword is not None:
        p.node(n.keyword)
    if n.equal is _DEFAULT and n.keyword is not None:
        p.add(" = ")
    elif type(n.equal) is cst.AssignEqual:
        _op(p, n.equal)
    p.node(n.value)
    p.comma(n.comma, default_comma)
    p.node(n.whitespace_after_arg)


def _binary(p: _Printer, n: cst.BinaryOperation) -> None:
    p.node(n.left)
    p.node(n.operator)
    p.node(n.right)


def _comparison(p: _Printer, n: cst.Comparison) -> None:
    p.node(n.left)
    for target in n.comparisons:
        p.node(target.operator)
        p.node(target.comparator)


def _subscript(p: _Printer, n: cst.Subscript) -> None:
    p.node(n.value)
    p.node(n.whitespace_after_value)
    _open(p, n.lbracket)
    last = len(n.slice) - 1
    for i, element in enumerate(n.slice):
        if type(element.slice) is cst.Index:
            _index(p, element.slice)
        else:
            p.node(element.slice)
        p.comma(element.comma, i != last)
    _close(p, n.rbracket)


def _index(p: _Printer, n: cst.Index) -> None:
    if n.star is not None:
        p.add(n.star)
    if n.whitespace_after_star is not None:
        p.node(n.whitespace_after_star)
    p.node(n.value)


def _elements(p: _Printer, elements, single_comma: bool) -> None:
    last = len(elements) - 1
    for i, el in enumerate(elements):
        if type(el) is cst.Element:
            p.node(el.value)
            if single_comma and last == 0:
                p.comma(el.comma, True, ",")
            else:
                p.comma(el.comma, i < last)
        else:
            p.libcst(el, default_comma=i < last or (single_comma and last == 0),
                     default_comma_whitespace=not (single_comma and last == 0))


def _list(p: _Printer, n: cst.List) -> None:
    _open(p, n.lbracket)
    _elements(p, n.elements, False)
    _close(p, n.rbracket)


def _tuple(p: _Printer, n: cst.Tuple) -> None:
    _elements(p, n.elements, True)


# -- statements ------------------------------------------------------------------------------------

def _simple_line(p: _Printer, n: cst.SimpleStatementLine) -> None:
    p.lines(n.leading_lines)
    p.tokens += p.indents
    body = n.body
    if not body:
        p.add("pass")
    last = len(body) - 1
    for i, small in enumerate(body):
        fn = _SMALL.get(type(small))
        if fn is None:
            p.libcst(small, default_semicolon=i != last)
        else:
            fn(p, small)
            p.semicolon(small.semicolon, i != last)
    _trailing(p, n.trailing_whitespace)


def _expr(p: _Printer, n: cst.Expr) -> None:
    p.node(n.value)


def _assign(p: _Printer, n: cst.Assign) -> None:
    for target in n.targets:
        p.node(target.target)
        p.node(target.whitespace_before_equal)
        p.add("=")
        p.node(target.whitespace_after_equal)
    p.node(n.value)


def _pass(p: _Printer, n: cst.Pass) -> None:
    p.add("pass")


def _block(p: _Printer, n: cst.IndentedBlock) -> None:
    _trailing(p, n.header)
    p.indents.append(p.default_indent if n.indent is None else n.indent)
    if n.body:
        for stmt in n.body:
            p.node(stmt)
    else:
        p.tokens += p.indents
        p.add("pass")
        p.add(p.newline)
    p.lines(n.footer)
    p.indents.pop()


def _with(p: _Printer, n: cst.With) -> None:
    if n.asynchronous is not None or len(n.items) != 1 or n.items[0].comma is not _DEFAULT:
        p.libcst(n)  # items followed by commas may need parentheses: libcst decides
        return
    p.lines(n.leading_lines)
    p.tokens += p.indents
    p.add("with")
    p.node(n.whitespace_after_with)
    if isinstance(n.lpar, cst.LeftParen):
        p.node(n.lpar)
    item = n.items[0]
    p.node(item.item)
    if item.asname is not None:
        p.libcst(item.asname)
    if isinstance(n.rpar, cst.RightParen):
        p.node(n.rpar)
    p.node(n.whitespace_before_colon)
    p.add(":")
    p.node(n.body)


def _if(p: _Printer, n: cst.If, is_elif: bool = False) -> None:
    p.lines(n.leading_lines)
    p.tokens += p.indents
    p.add("elif" if is_elif else "if")
    p.node(n.whitespace_before_test)
    p.node(n.test)
    p.node(n.whitespace_after_test)
    p.add(":")
    p.node(n.body)
    orelse = n.orelse
    if type(orelse) is cst.If:
        _if(p, orelse, True)
    elif orelse is not None:
        p.node(orelse)


def _else(p: _Printer, n: cst.Else) -> None:
    p.lines(n.leading_lines)
    p.tokens += p.indents
    p.add("else")
    p.node(n.whitespace_before_colon)
    p.add(":")
    p.node(n.body)


def _for(p: _Printer, n: cst.For) -> None:
    if n.asynchronous is not None:
        p.libcst(n)
        return
    p.lines(n.leading_lines)
    p.tokens += p.indents
    p.add("for")
    p.node(n.whitespace_after_for)
    p.node(n.target)
    p.node(n.whitespace_before_in)
    p.add("in")
    p.node(n.whitespace_after_in)
    p.node(n.iter)
    p.node(n.whitespace_before_colon)
    p.add(":")
    p.node(n.body)
    if n.orelse is not None:
        p.node(n.orelse)


def _function(p: _Printer, n: cst.FunctionDef) -> None:
    p.lines(n.leading_lines)
    for decorator in n.decorators:
        p.lines(decorator.leading_lines)
        p.tokens += p.indents
        p.add("@")
        p.node(decorator.whitespace_after_at)
        p.node(decorator.decorator)
        _trailing(p, decorator.trailing_whitespace)
    p.lines(n.lines_after_decorators)
    p.tokens += p.indents
    if n.asynchronous is not None:
        p.libcst(n.asynchronous)
    p.add("def")
    p.node(n.whitespace_after_def)
    p.node(n.name)
    p.node(n.whitespace_after_name)
    if n.type_parameters is not None:
        p.libcst(n.type_parameters)
    p.node(n.whitespace_after_type_parameters)
    p.add("(")
    p.node(n.whitespace_before_params)
    p.libcst(n.params)
    p.add(")")
    if n.returns is not None:
        p.libcst(n.returns, default_indicator="->")
    p.node(n.whitespace_before_colon)
    p.add(":")
    p.node(n.body)


def _module(p: _Printer, n: cst.Module) -> None:
    p.lines(n.header)
    p.lines(n.body)
    p.lines(n.footer)
    if n.has_trailing_newline:
        if not p.tokens:
            p.add(p.newline)
    elif p.tokens:
        p.tokens.pop()


_TOKENS: dict[type, str] = {
    cst.Comma: ",", cst.Dot: ".", cst.AssignEqual: "=", cst.Colon: ":",
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//",
    cst.Modulo: "%", cst.Power: "**", cst.MatrixMultiply: "@",
    cst.LeftShift: "<<", cst.RightShift: ">>", cst.BitAnd: "&", cst.BitOr: "|", cst.BitXor: "^",
    cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
    cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.In: "in", cst.Is: "is",
    cst.LeftParen: "(", cst.RightParen: ")", cst.LeftSquareBracket: "[", cst.RightSquareBracket: "]",
}

_PRINT: dict[type, Callable[[_Printer, Any], None]] = {
    cst.SimpleWhitespace: _value, cst.Comment: _value, cst.Newline: _newline,
    cst.TrailingWhitespace: _trailing, cst.EmptyLine: _empty_line,
    cst.ParenthesizedWhitespace: _parenthesized_whitespace,
    **{t: _op for t in _TOKENS if t not in (cst.LeftParen, cst.RightParen, cst.LeftSquareBracket,
                                               cst.RightSquareBracket)},
    cst.LeftParen: _open, cst.LeftSquareBracket: _open, cst.RightParen: _close, cst.RightSquareBracket: _close,
    cst.Name: _atom, cst.Integer: _atom, cst.Float: _atom, cst.SimpleString: _atom,
    **{t: _parenthesized(f) for t, f in ((cst.Attribute, _attribute), (cst.Call, _call),
                                           (cst.BinaryOperation, _binary), (cst.Comparison, _comparison),
                                           (cst.Subscript, _subscript), (cst.List, _list), (cst.Tuple, _tuple))},
    cst.SimpleStatementLine: _simple_line, cst.IndentedBlock: _block,
    cst.With: _with, cst.If: _if, cst.Else: _else, cst.For: _for, cst.FunctionDef: _function,
    cst.Module: _module,
}
_SMALL: dict[type, Callable[[_Printer, Any], None]] = {
    cst.Expr: _expr, cst.Assign: _assign, cst.Pass: _pass,
}


def code_for_node(module: cst.Module, node: cst.CSTNode) -> str:
    """`module.code_for_node(node)`, faster."""
    printer = _Printer(module.default_indent, module.default_newline)
    printer.node(node)
    return "".join(printer.tokens)


def code(module: cst.Module) -> str:
    """`module.code`, faster."""
    return code_for_node(module, module)


_EMPTY = cst.Module([])


def expression_code(node: cst.CSTNode) -> str:
    """The text of a node outside any module (default indentation and newline)."""
    return code_for_node(_EMPTY, node)
