"""The input file: its text, its libcst tree, and positions computed only where reported.

Only the statements the analysis reads are parsed (`partial.py`); the others stay text.
Resolving libcst's PositionProvider over a whole module costs about four times the parse,
so positions are never resolved up front. When a diagnostic needs the position of a node,
only the top-level statement holding it is measured (a one-statement module wrapped with
`unsafe_skip_copy=True`, so that the analysis's nodes are the keys), and the result is
shifted by the number of lines before that statement.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from pto_transpile.read import partial
from pto_transpile.read.kept import definition_text, statement_starts
from pto_transpile.read.layout import read_layout
from pto_transpile.read.printing import code_in
from pto_transpile.read.walk import iter_nodes


@dataclass
class SourceFile:
    path: str
    text: str
    module: cst.Module
    _owner: dict = field(default_factory=dict, repr=False)  #: node -> top-level statement index
    _positions: dict = field(default_factory=dict, repr=False)  #: statement index -> positions
    _first_lines: list | None = field(default=None, repr=False)
    _walked: int = field(default=0, repr=False)  #: statements whose nodes are in `_owner`
    _texts: dict | None = field(default=None, repr=False)  #: a statement -> its text, when parsed in part
    _tail: str = field(default="", repr=False)
    _trees: list | None = field(default=None, repr=False)  #: Python's tree of each statement
    _head: str = field(default="", repr=False)  #: the text before the first statement, when parsed whole

    @classmethod
    def parse(cls, text: str, path: str = "<string>") -> SourceFile:
        """Parse `text`. Before libcst sees it, layout.TooComplex refuses text too large or
        too deep to parse safely, and SyntaxError (or ValueError) is what Python's parser or
        compiler refuses; libcst.ParserSyntaxError is what libcst alone refuses."""
        layout = read_layout(text)
        skimmed = partial.parse(text, layout)
        if skimmed is not None:
            return cls(path=path, text=text, module=skimmed.module, _first_lines=skimmed.first_lines,
                       _texts=skimmed.texts, _tail=skimmed.tail, _trees=layout.statements)
        source = cls(path=path, text=text, module=cst.parse_module(text), _trees=layout.statements)
        source._find_texts()
        return source

    def read_whole(self) -> None:
        """Parse the whole text after all: what was kept as text turned out to be needed."""
        self.module = cst.parse_module(self.text)
        self._texts, self._tail, self._first_lines = None, "", None
        self._owner.clear()
        self._positions.clear()
        self._walked = 0
        self._find_texts()

    def _find_texts(self) -> None:
        """The text each statement of a module parsed whole was read from (`kept.py`), when
        libcst's statements and Python's line up one for one."""
        body, trees = self.module.body, self._trees
        if trees is None or len(body) != len(trees) or not body or not self.text.endswith(("\n", "\r")):
            return
        flat = [tree for group in trees for tree in group]
        starts = statement_starts(body, flat, self.text, 1, len(self.module.footer))
        if starts is None:
            return
        self._head, self._tail = self.text[:starts[0]], self.text[starts[-1]:]
        self._texts = {stmt: self.text[a:b] for stmt, a, b in zip(body, starts, starts[1:], strict=False)}
        self._first_lines = [self.text.count("\n", 0, a) + 1 for a in starts[:-1]] if "\r" not in self.text else None

    def render(self, module: cst.Module) -> str:
        """The code of `module`, this file's module with some statements replaced: the ones
        kept print as the text they were read from, only new ones are generated, and so are
        only the new statements of a rewritten definition (`kept.py`)."""
        if self._texts is None or module.footer is not self.module.footer:
            return code_in(module, module)
        texts = self._texts
        return self._head + "".join(texts.get(s) or self._rewritten(module, s) for s in module.body) + self._tail

    def _rewritten(self, module: cst.Module, stmt: cst.BaseStatement) -> str:
        """A statement the rewrite made: a rewritten definition pieced from the text of
        what it kept, anything else printed."""
        if isinstance(stmt, cst.FunctionDef) and self._texts is not None and self._trees is not None:
            found = [(i, old) for i, old in enumerate(self.module.body)
                     if type(old) is cst.FunctionDef and old.name.value == stmt.name.value]
            if len(found) == 1 and len(self._trees[found[0][0]]) == 1:
                (i, old), = found
                text = definition_text(module, stmt, old, self._texts[old], self._trees[i][0], self._first_line(i))
                if text is not None:
                    return text
        return code_in(module, stmt)

    def python_statements(self) -> list[ast.stmt]:
        """Python's syntax tree of every top-level statement, in order (the layout's parse, or
        a parse of the text when there is none)."""
        if self._trees is not None:
            return [t for trees in self._trees for t in trees]
        return list(ast.parse(self.text).body)

    def tree_of(self, stmt: cst.CSTNode) -> ast.stmt | None:
        """Python's syntax tree of top-level statement `stmt` (line numbers of the file), when
        the layout's parse has it as one statement."""
        if self._trees is None or len(self._trees) != len(self.module.body):
            return None
        for i, s in enumerate(self.module.body):
            if s is stmt:
                trees = self._trees[i]
                return trees[0] if len(trees) == 1 else None
        return None

    def span(self, node: cst.CSTNode) -> CodeRange:
        if node is self.module:
            return CodeRange(CodePosition(1, 0), CodePosition(1, 0))
        index = self._statement_of(node)
        positions = self._positions.get(index)
        if positions is None:
            stmt = self.module.body[index]
            alone = self.module.with_changes(header=[], body=[stmt], footer=[])
            positions = self._positions[index] = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
        r = positions[node]
        shift = self._first_line(index) - 1
        # a kept definition's text starts with its leading lines: it starts at its own first line
        lead = partial.leading_line_count(node.text) if type(node) is partial.Verbatim else 0
        return CodeRange(CodePosition(r.start.line + shift + lead, r.start.column),
                         CodePosition(r.end.line + shift, r.end.column))

    def statement_of(self, node: cst.CSTNode) -> cst.BaseStatement | None:
        """The top-level statement holding `node` (None: `node` is not in this file's tree)."""
        try:
            return self.module.body[self._statement_of(node)]
        except KeyError:
            return None

    def _statement_of(self, node: cst.CSTNode) -> int:
        """Index of the top-level statement holding `node`; statements are walked once, in
        order, and every node seen on the way is remembered."""
        owner = self._owner
        while node not in owner and self._walked < len(self.module.body):
            index = self._walked
            for n in iter_nodes(self.module.body[index]):
                owner[n] = index
            self._walked += 1
        if node not in owner:
            raise KeyError(f"node not in module: {node!r:.80}")
        return owner[node]

    def _first_line(self, index: int) -> int:
        """1-based line on which top-level statement `index` (with its leading lines) starts."""
        if self._first_lines is None:
            header = "".join(code_in(self.module, line) for line in self.module.header)
            lines, line = [], 1 + line_breaks(header)
            for stmt in self.module.body:
                lines.append(line)
                line += line_breaks(code_in(self.module, stmt))
            self._first_lines = lines
        return self._first_lines[index]

    def line_of(self, node: cst.CSTNode) -> int:
        return self.span(node).start.line

    def code(self, node: cst.CSTNode) -> str:
        """The source text of `node` exactly as written (hex stays hex)."""
        return code_in(self.module, node)


def line_breaks(text: str) -> int:
    """The line breaks in `text` as Python counts them: `\n`, `\r\n` and a lone `\r` (a file
    saved with old Mac line endings; probe h217: its diagnostics were placed by `\n` alone)."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")
