"""Diagnostics as data: what went wrong, where, and how to fix it.

Two types, one per stage: a `Finding` is what an analysis step or a rule found, in terms of
the syntax tree (a rule code, the node, the values its message needs); the Reporter turns it
into a `Diagnostic`, positioned and worded, which is all renderers and callers ever see.

Indexing, written down once: `line` and `end_line` are 1-based; `column` and `end_column`
are 1-based character columns (libcst reports 0-based columns; we add one when a
diagnostic is made). `end_column` is exclusive. Renderers never recompute positions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import libcst as cst


class Severity(str, Enum):
    ERROR = "error"  #: blocks the output, exit status 1
    WARNING = "warning"  #: shown, the output is written
    NOTE = "note"  #: information only (a file with nothing to pipeline, a kernel left as written)


@dataclass(frozen=True)
class Finding:
    """A problem found in the source: rule `code`, the node it is about, the `fields` its
    message and hint templates take, and other nodes that explain it (message, node)."""

    code: str
    node: cst.CSTNode
    fields: dict[str, Any] = field(default_factory=dict)
    related: tuple[tuple[str, cst.CSTNode], ...] = ()

    @classmethod
    def of_check(cls, code: str, node: cst.CSTNode, fields: dict[str, Any]) -> Finding:
        """What a rule's `check` yields, `(node, fields)`: other locations come under `_related`."""
        fields = dict(fields)
        related: Iterable[tuple[str, cst.CSTNode]] = fields.pop("_related", ())
        return cls(code, node, fields, tuple(related))


@dataclass(frozen=True)
class Related:
    """Another location that explains a diagnostic (the other access of a cycle, ...)."""

    message: str
    line: int
    column: int
    path: str | None = None


@dataclass(frozen=True)
class Diagnostic:
    code: str  #: stable rule code, e.g. "PTO012"
    name: str  #: kebab-case rule name
    severity: Severity
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    hint: str = ""
    related: tuple[Related, ...] = field(default_factory=tuple)

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code)

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "hint": self.hint,
            "related": [
                {"message": r.message, "path": r.path or self.path, "line": r.line, "column": r.column}
                for r in self.related
            ],
        }


class InternalError(Exception):
    """A bug in pto-transpile itself (exit status 2), never a problem of the input."""
