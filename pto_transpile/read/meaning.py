"""What a module-level name means once the module has finished executing.

Kernels are compiled and run after the module is imported, so a name means what it is
bound to at the end of the module: a value the constant evaluator could fold, a function
or class defined in the file, or something that cannot be known without running the file
(`Unknown`, with the reason). Unknown is never replaced by a guess such as a first value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from pto_transpile.read.walk import iter_nodes


@dataclass(frozen=True)
class Value:
    """A compile-time value (int, float, str, tuple, list, `PlSymbol`, ...)."""

    value: Any


@dataclass(frozen=True)
class Function:
    """A `def` of this file (a libcst `FunctionDef`, or a `Verbatim` kept as text)."""

    node: Any

    @property
    def name(self) -> str:
        """The name the `def` statement itself binds (an alias may be another)."""
        node = self.node
        return node.name.value if isinstance(node, cst.FunctionDef) else node.name


@dataclass(frozen=True)
class Class:
    """A `class` of this file (a libcst `ClassDef`, or a `Verbatim` kept as text)."""

    node: Any

    @property
    def name(self) -> str:
        node = self.node
        return node.name.value if isinstance(node, cst.ClassDef) else node.name


@dataclass(frozen=True)
class Unknown:
    """Bound to something that cannot be known statically; `reason` says why, in words
    that follow "is not a compile-time constant (...)"."""

    reason: str
    imported: bool = False  #: bound by an import (another module's object), not by this file's code
    #: what made it (`K()`, `type(...)`, a decorator, a function through `global`) when the value
    #: may be an object on which Python runs code of the file where it is used ("" when not)
    made: str = ""
    #: the fix when it is not the name's own binding: what the file does elsewhere that makes the
    #: name unknown (a function attribute set through another expression), "" for the usual fix
    fix: str = ""
    #: the line of a `global` statement of a function or class body that may rebind it, 0 when none
    global_line: int = 0


Meaning = Value | Function | Class | Unknown


def unknown_reasons(file, nodes) -> dict[str, str]:
    """The module names under `nodes` whose value cannot be known without running the file (not
    imported ones: another module's), each with the reason: why a value built from them is not
    static."""
    meanings = file.names.meanings
    found: dict[str, str] = {}
    for node in nodes:
        for name in ([] if node is None else file.find(node, cst.Name)):
            meaning = meanings.get(name.value)
            if isinstance(meaning, Unknown) and not meaning.imported:
                found.setdefault(name.value, meaning.reason)
        for attr in ([] if node is None else file.find(node, cst.Attribute)):
            cls = meanings.get(attr.value.value) if type(attr.value) is cst.Name else None
            if isinstance(cls, Class) and isinstance(cls.node, cst.ClassDef) and not file.fixed_members(cls.node):
                found.setdefault(f"{cls.name}.{attr.attr.value}",
                                 "the check reads the attributes of a class only where nothing can replace them: no "
                                 "base, metaclass or decorator, a body of constants and `@staticmethod`s, and its name "
                                 "used only as `Class.member`; use a module constant")
    return found


def class_binds(stmt: cst.CSTNode) -> set[str]:
    """The names a statement of a class body binds in the class: a `def`, a `class`, the
    targets of an assignment; any other statement (an `if`, a loop) counts as binding every
    name it mentions."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return {stmt.name.value}
    if isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Assign, cst.AnnAssign, cst.Expr, cst.Pass)) for s in stmt.body):
        targets = [t.target for s in stmt.body if isinstance(s, cst.Assign) for t in s.targets] + \
            [s.target for s in stmt.body if isinstance(s, cst.AnnAssign)]
        return {n.value for t in targets for n in iter_nodes(t) if isinstance(n, cst.Name)}
    return {n.value for n in iter_nodes(stmt) if isinstance(n, cst.Name)}


def unknown_words(found: dict[str, str]) -> str:
    """`unknown_reasons` as the end of a message."""
    return "".join(f"; `{name}` is not a compile-time constant ({reason})" for name, reason in sorted(found.items()))

