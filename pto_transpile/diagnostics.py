"""Diagnostics as data: what went wrong, where, and how to fix it.

Indexing, written down once: `line` and `end_line` are 1-based; `column` and `end_column`
are 1-based character columns (libcst reports 0-based columns; we add one when a
diagnostic is made). `end_column` is exclusive. Renderers never recompute positions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"  #: blocks the output, exit status 1
    WARNING = "warning"  #: shown, the output is written
    NOTE = "note"  #: information only (a file with nothing to pipeline, a kernel left as written)


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

    def with_path(self, path: str) -> "Diagnostic":
        return replace(self, path=path)

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
