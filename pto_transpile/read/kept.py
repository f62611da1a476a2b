"""A rewritten definition as text: what the rewrite kept prints as the text it was read from.

A kernel's rewrite replaces its pipeline loops and a few statements; the rest of its body
are the very nodes the file was read into. Printing only the statements that changed
halves the printing of a generated kernel. A kept statement's text is a stretch of lines
of the definition's text: it starts at its first line of code (from Python's tree) less
the blank and comment lines libcst gave it (`leading_lines`), and ends where the next one
starts, so that the lines in between go where libcst put them (a nested block's footer,
or the next statement's leading lines). Anything unusual (a body on the `def` line, a
tree that does not line up) returns None, and the caller prints the whole definition.
"""

from __future__ import annotations

import ast
import re

import libcst as cst

from pto_transpile.read.printing import _PlainState, code_in

_NEWLINE = re.compile(r"\r\n|\r|\n")


def definition_text(module: cst.Module, new: cst.FunctionDef, old: cst.FunctionDef, text: str,
                    tree: ast.stmt, first_line: int) -> str | None:
    """The text of `new`, a rewrite of `old` (read from `text`, which starts on `first_line`
    of the file, and whose syntax tree is `tree`), or None when it cannot be pieced."""
    block, kept_block = new.body, old.body
    if not isinstance(block, cst.IndentedBlock) or not isinstance(kept_block, cst.IndentedBlock) \
            or not isinstance(tree, (ast.FunctionDef, ast.AsyncFunctionDef)) or block.footer is not kept_block.footer:
        return None
    starts = statement_starts(kept_block.body, tree.body, text, first_line, len(kept_block.footer))
    if starts is None:
        return None
    indent = module.default_indent if block.indent is None else block.indent
    head = code_in(module, new.with_changes(body=block.with_changes(body=[], footer=[])))
    empty = f"{indent}pass{module.default_newline}"
    if not head.endswith(empty):
        return None
    kept = {stmt: text[start:end] for stmt, start, end in zip(kept_block.body, starts, starts[1:], strict=False)}
    parts = [head[:-len(empty)]]
    for stmt in block.body:
        piece = kept.get(stmt)
        if piece is None:
            state = _PlainState(module.default_indent, module.default_newline)
            state.indent_tokens.append(indent)
            stmt._codegen(state)  # type: ignore[arg-type]  # printing.py: libcst's code generation, less positions
            piece = "".join(state.tokens)
        parts.append(piece)
    parts.append(text[starts[-1]:])  # the footer, kept with the block
    return "".join(parts)


def statement_starts(statements, trees: list[ast.stmt], text: str, first_line: int, footer: int) -> list[int] | None:
    """Offsets in `text` (which starts on line `first_line` of the file) where each of
    `statements` starts, then where the last one ends (the start of the `footer` lines, the
    last of `text`); None when libcst's statements and Python's `trees` do not line up."""
    lines = [0] + [m.end() for m in _NEWLINE.finditer(text)]
    out: list[int] = []
    position = 0
    for stmt in statements:
        if position >= len(trees):
            return None
        code = trees[position]
        decorators = getattr(code, "decorator_list", None)
        line = (decorators[0] if decorators else code).lineno - first_line - len(stmt.leading_lines)
        position += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
        if not 0 <= line < len(lines) or (out and lines[line] <= out[-1]):
            return None
        out.append(lines[line])
    end = len(lines) - 1 - footer  # `text` ends with a newline: its last line start is len(text)
    if position != len(trees) or not out or end < 0 or lines[end] <= out[-1]:
        return None
    out.append(lines[end])
    return out
