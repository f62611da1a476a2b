"""How a libcst node prints: libcst's own code generation, without its position bookkeeping.

`Module.code_for_node` hands every node a `CodegenState` whose `record_syntactic_position`
is a generator-based context manager, entered for every expression although plain printing
never reads a position; on a generated kernel that bookkeeping is about a third of the
printing. `_PlainState` offers what a node's `_codegen` asks of a state, with a shared
no-op context instead, so each node still prints through its own code generation and the
text is libcst's (`tests/read/test_printing.py` compares the two on every golden output).
"""

from __future__ import annotations

from contextlib import nullcontext

import libcst as cst

_NOTHING = nullcontext()


class _PlainState:
    """The state libcst's code generation writes its tokens into (its `CodegenState`'s interface)."""

    __slots__ = ("default_indent", "default_newline", "provider", "indent_tokens", "tokens")

    def __init__(self, indent: str, newline: str):
        self.default_indent, self.default_newline, self.provider = indent, newline, None
        self.indent_tokens: list[str] = []
        self.tokens: list[str] = []

    def increase_indent(self, value: str) -> None:
        self.indent_tokens.append(value)

    def decrease_indent(self) -> None:
        self.indent_tokens.pop()

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        pass

    def after_codegen(self, node: cst.CSTNode) -> None:
        pass

    def pop_trailing_newline(self) -> None:
        if self.tokens:
            self.tokens.pop()

    def record_syntactic_position(self, node, *, start_node=None, end_node=None) -> nullcontext:
        return _NOTHING


def code_in(module: cst.Module, node: cst.CSTNode) -> str:
    """`module.code_for_node(node)`: `node` printed with `module`'s indentation and newline."""
    state = _PlainState(module.default_indent, module.default_newline)
    node._codegen(state)  # type: ignore[arg-type]  # the state libcst's code generation needs, less the positions
    return "".join(state.tokens)


#: An empty module: what prints a node that belongs to no file (default indentation and newline).
_NOWHERE = cst.Module([])


def code_of(node: cst.CSTNode) -> str:
    """The text of `node` outside any module: generated expressions, and the user's
    expressions as written."""
    return code_in(_NOWHERE, node)
