"""The input file: its text, its libcst tree, and positions computed only when asked.

Resolving libcst's PositionProvider over a whole module costs about four times the parse,
so positions are resolved lazily, the first time a diagnostic needs one. The wrapper is
built with `unsafe_skip_copy=True` so that the nodes the analysis holds are the very nodes
the positions are keyed by.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider


@dataclass
class SourceFile:
    path: str
    text: str
    module: cst.Module
    _positions: dict | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, text: str, path: str = "<string>") -> "SourceFile":
        """Parse `text`; raises libcst.ParserSyntaxError on a syntax error."""
        return cls(path=path, text=text, module=cst.parse_module(text))

    def span(self, node: cst.CSTNode) -> CodeRange:
        if self._positions is None:
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = wrapper.resolve(PositionProvider)
        return self._positions[node]

    def line_of(self, node: cst.CSTNode) -> int:
        return self.span(node).start.line

    def code(self, node: cst.CSTNode) -> str:
        """The source text of `node` exactly as written (hex stays hex)."""
        return self.module.code_for_node(node)

    def line_text(self, line: int) -> str:
        lines = self.text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""
