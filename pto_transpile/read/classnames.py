"""Which classes of a file the checks follow the members of, and the static methods they run.

A call through `Class.method` runs the `@staticmethod` the class body defines only while
nothing replaces it: no base (whose `__init_subclass__` may), metaclass or class decorator,
no rebinding of `staticmethod`, of the method or of the class (through an alias, which could
set a member). `plain_members` says which classes are so; the module-name analysis, the access
scan and the soundness check's interpreter follow the members of those alone. Read from
Python's tree of the whole file (what its code stores, wherever it runs: strings and comments
are not code) and its tokens, erring towards no: a false alarm only leaves the class
unfollowed, and a call into it refused.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import libcst as cst

from pto_transpile.read.meaning import Class

#: Calls that set or delete an attribute of their first argument by name.
_SETTERS = frozenset({"setattr", "delattr"})


@dataclass(frozen=True)
class _Stores:
    """What the code of a file (Python's tree of it: not its strings or comments) may change
    of its names and attributes, wherever it runs."""

    bound: Counter[str]  #: name -> how many places bind it (`=`, `import as`, `def`, `for`, ...)
    #: attribute names set or deleted on any object (`x.m = f`, `for C.m in ...`, `setattr(x, "m", f)`);
    #: `*` for `setattr`/`delattr` by a computed name
    attributes: frozenset[str]
    #: names something under which is set or deleted (`C.m.__code__ = ...`, `setattr(C, ...)`), or
    #: whose `__dict__` is read
    reached: frozenset[str]
    strings: frozenset[str]  #: string constants other than a statement of its own (a docstring)
    star: bool  #: a `from m import *`, which may bind any name


@lru_cache(maxsize=4)
def _stores(text: str) -> _Stores | None:
    """`_Stores` of the file `text`; None when Python cannot parse it (then no class is plain)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    bound: Counter[str] = Counter()
    attributes: set[str] = set()
    reached: set[str] = set()
    strings: set[str] = set()
    star = False
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    for node in ast.walk(tree):
        bound.update(_names_bound(node))
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if isinstance(node, ast.Attribute):
                attributes.add(node.attr)
            reached.update(_root(node))
        elif isinstance(node, ast.Attribute) and node.attr == "__dict__":
            reached.update(_root(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SETTERS:
            if node.args:
                reached.update(_root(node.args[0]))
            name = node.args[1] if len(node.args) > 1 else None
            attributes.add(name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else "*")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            strings.add(node.value)
        elif isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            star = True
    return _Stores(bound, frozenset(attributes), frozenset(reached), frozenset(strings), star)


def _root(node: ast.expr) -> list[str]:
    """The name an attribute or subscript chain starts at (`C` of `C.m.__code__`), if any."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return [node.id] if isinstance(node, ast.Name) else []


def _names_bound(node: ast.AST) -> list[str]:
    """The names `node` binds in some scope: a target, an import, a `def` or `class`, a
    parameter, `global`/`nonlocal`, an `except ... as`, a `match` capture."""
    if isinstance(node, ast.Name):
        return [] if isinstance(node.ctx, ast.Load) else [node.id]
    if isinstance(node, ast.alias):
        return [] if node.name == "*" else [node.asname or node.name.partition(".")[0]]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return [node.name] if node.name else []
    if isinstance(node, ast.MatchMapping):
        return [node.rest] if node.rest else []
    return []


def name_bound(text: str, name: str) -> bool:
    """Whether the code of `text` may bind `name` anywhere, or set it as an attribute or by its
    spelling (`staticmethod = f`, `import x as staticmethod`, `builtins.staticmethod = f`,
    `globals()["staticmethod"] = f`, `from m import *`); yes when `text` does not parse."""
    found = _stores(text)
    return found is None or found.star or found.bound[name] > 0 or name in found.attributes or name in found.strings


def class_rebound(text: str, cls: str) -> bool:
    """Whether the code of `text` may bind the name `cls` other than by its one `class` statement,
    or set or delete something under it (`Ev.notify.__code__ = ...`, `setattr(Ev, ...)`), or read
    `Ev.__dict__`; yes when `text` does not parse."""
    found = _stores(text)
    return found is None or found.star or found.bound[cls] != 1 or cls in found.reached


def changed_under(text: str, name: str) -> bool:
    """Whether the code of `text` may set or delete something under the name `name` (`math.erfc =
    f`, `setattr(math, ...)`) or read its `__dict__`; yes when `text` does not parse."""
    found = _stores(text)
    return found is None or name in found.reached


def attribute_rebound(text: str, attr: str) -> bool:
    """Whether the code of `text` may set or delete an attribute `attr` of some object (`Ev.notify
    = f`, `Ev.notify, x = f, 1`, `for Ev.notify in ...`, `del Ev.notify`, `setattr(x, "notify",
    f)`, `setattr` by a computed name); yes when `text` does not parse."""
    found = _stores(text)
    return found is None or attr in found.attributes or "*" in found.attributes


def plain_members(tree: ast.ClassDef, text: str) -> bool:
    """Whether the members of class `tree` are what its body's statements say, whenever the
    file reads them: no base (an `__init_subclass__`), keyword (a metaclass) or decorator
    that may replace them; a body of a docstring, names bound once to values and `def`s
    decorated `@staticmethod` alone; `staticmethod` the builtin; and the class's name used
    nowhere but as `Class.member` (no alias that could set a member, `HS = Class`)."""
    if tree.bases or tree.keywords or tree.decorator_list or name_bound(text, "staticmethod"):
        return False
    names: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            if not (len(stmt.decorator_list) == 1 and isinstance(stmt.decorator_list[0], ast.Name)
                    and stmt.decorator_list[0].id == "staticmethod"):
                return False
            names.append(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if not all(isinstance(t, ast.Name) for t in targets):
                return False
            names += [t.id for t in targets]  # type: ignore[attr-defined]
        elif not (isinstance(stmt, ast.Pass) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            return False
    if len(names) != len(set(names)) or "staticmethod" in names:
        return False
    return _named_only_as_class(text, tree.name) and not class_rebound(text, tree.name) \
        and not any(attribute_rebound(text, n) for n in names)


def _named_only_as_class(text: str, cls: str) -> bool:
    """Whether every use of the name `cls` in the code (not in strings or comments) is its
    `class` statement or `cls.member`."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT,
                                    tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError):
        return False
    for i, t in enumerate(tokens):
        if t.type == tokenize.NAME and t.string == cls:
            after = tokens[i + 1] if i + 1 < len(tokens) else None
            before = tokens[i - 1] if i else None
            if not (after is not None and after.string == "." or before is not None and before.string == "class"):
                return False
    return True


def static_method(file, func: Any) -> Any:
    """The `def` a call through `func` runs when it is `Class.method`, a `@staticmethod` of a
    class of `file` whose members nothing can replace (`plain_members`); None otherwise."""
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return None
    meaning = file.meaning(func.value.value)
    if not isinstance(meaning, Class) or not isinstance(meaning.node, cst.ClassDef):
        return None
    if not file.fixed_members(meaning.node):
        return None
    found = [s for s in meaning.node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == func.attr.value]
    return found[0] if len(found) == 1 else None
