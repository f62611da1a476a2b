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
import dataclasses
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
    if tree.bases or tree.keywords or tree.decorator_list or name_bound(text, "staticmethod") or _mangles(tree):
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


def _mangles(tree: ast.ClassDef) -> bool:
    """Does the class body spell a name Python reads otherwise there: `__X` (`_Class__X`, name
    mangling), or a name of the class's own namespace (`__qualname__`, `__module__`)? (Probe h116.)"""
    for node in ast.walk(tree):
        spelled = node.id if isinstance(node, ast.Name) else node.arg if isinstance(node, ast.arg) \
            else node.attr if isinstance(node, ast.Attribute) and not node.attr.endswith("__") \
            else node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not tree else ""
        if spelled.startswith("__"):
            return True
    return False


def with_fstring_code(text: str) -> str:
    """`text` and, after it, the code of every f-string's replacement fields, one per line: Python
    3.11's tokenizer reads an f-string as one STRING token, so a scan of tokens would not see
    `f"{globals().update(N=1)}"` run code (probe h116)."""
    if "{" not in text:
        return text
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    fields = [ast.unparse(n.value) for n in ast.walk(tree) if isinstance(n, ast.FormattedValue)]
    return text if not fields else text + "\n" + "\n".join(f"({code})" for code in fields) + "\n"


def _named_only_as_class(text: str, cls: str) -> bool:
    """Whether every use of the name `cls` in the code (not in strings or comments, but in the
    replacement fields of f-strings) is its `class` statement or `cls.member`."""
    text = with_fstring_code(text)
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
            member = tokens[i + 2] if i + 2 < len(tokens) else None
            if not (after is not None and after.string == "." and member is not None
                    and not member.string.startswith("__") or before is not None and before.string == "class"):
                return False  # (`Tiling.__mro__[0]` reaches the class itself: probe h116)
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


#: the annotations of a data class's fields whose instances the check folds (`record_class`)
_FIELD_TYPES = frozenset({"int", "float", "bool", "str"})
#: `@dataclass(...)` options that leave an instance's fields what its call gives
_RECORD_OPTIONS = frozenset({"frozen", "eq", "repr", "slots"})
#: what the `dataclasses` module holds, none of which a file whose data classes are folded may set
_DATACLASS_NAMES = frozenset(dir(dataclasses))


def record_class(text: str, name: str) -> bool:
    """Whether an instance of the module-level class `name` made at module level holds just the
    fields its call gives, the defaults filled, whatever else the file does: one `class` of that
    name, decorated `@dataclass` (the name `from dataclasses import dataclass` binds, nothing
    setting anything of `dataclasses`) with options that change no field (`frozen`, `eq=True`,
    `repr`, `slots`); a body of fields annotated `int`, `float`, `bool` or `str` (names nothing
    rebinds: no `ClassVar`, `InitVar` or `field(...)` by another spelling), ASCII-named, whose
    defaults are numbers, strings or arithmetic of module names bound once (the same when the class
    is made and when an instance is); and the class's name only called or named in annotations
    (nothing sets, replaces or hands on the class). Probe h115 found ten ways past a looser test."""
    found = _stores(text)
    if found is None or found.star:
        return False
    tree = ast.parse(text)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    if len(classes) != 1 or found.bound[name] != 1 or name in found.reached or name in found.strings \
            or any(isinstance(n, ast.Name) and n.id.startswith("__") for n in ast.walk(classes[0])):
        return False  # (`__x` in a class body is `_Tiling__x`, and `__qualname__` the class's own: probe h116)
    cls = classes[0]
    if cls.bases or cls.keywords or len(cls.decorator_list) != 1 or not _plain_dataclass(cls.decorator_list[0], tree,
                                                                                           found):
        return False
    fields: list[str] = []
    for k, stmt in enumerate(cls.body):
        if k == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                and isinstance(stmt.value.value, str):
            continue
        if not (isinstance(stmt, ast.AnnAssign) and stmt.simple and isinstance(stmt.target, ast.Name)
                and stmt.target.id.isascii() and stmt.target.id not in fields
                and isinstance(stmt.annotation, ast.Name) and stmt.annotation.id in _FIELD_TYPES
                and found.bound[stmt.annotation.id] == 0 and stmt.annotation.id not in found.strings
                and (stmt.value is None or _constant_default(stmt.value, fields, found))):
            return False
        fields.append(stmt.target.id)
    return _only_called(tree, name)


def _plain_dataclass(decorator: ast.expr, tree: ast.Module, found: _Stores) -> bool:
    """`@dataclass` or `@dataclass(frozen=True, ...)` of options in `_RECORD_OPTIONS` (`eq` true), the
    name bound once, by `from dataclasses import dataclass`, and nothing of `dataclasses` set."""
    call = decorator if isinstance(decorator, ast.Call) else None
    func = call.func if call is not None else decorator
    if not (isinstance(func, ast.Name) and func.id == "dataclass"):
        return False
    if call is not None and (call.args or any(
            k.arg not in _RECORD_OPTIONS or not isinstance(k.value, ast.Constant) or type(k.value.value) is not bool
            or k.arg == "eq" and k.value.value is not True for k in call.keywords)):
        return False
    imported = any(isinstance(n, ast.ImportFrom) and n.module == "dataclasses" and n.level == 0
                   and any(a.name == "dataclass" and a.asname in (None, "dataclass") for a in n.names)
                   for n in tree.body)
    # nothing the module holds set by any route (`import dataclasses as _dc; _dc._process_class = f`,
    # probe h116): no attribute of that name set anywhere, nor spelled in a string
    held = _DATACLASS_NAMES | {"*"}
    return imported and found.bound["dataclass"] == 1 and not held & found.attributes \
        and not _DATACLASS_NAMES & found.strings and "dataclasses" not in found.reached


def _constant_default(value: ast.expr, fields: list[str], found: _Stores) -> bool:
    """A number, a string, or arithmetic of those and of module names bound once (never a field of
    the class, which the class body would read in its own scope)."""
    if isinstance(value, ast.Constant):
        return type(value.value) in (int, float, bool, str)
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        return _constant_default(value.operand, fields, found)
    if isinstance(value, ast.BinOp):
        return _constant_default(value.left, fields, found) and _constant_default(value.right, fields, found)
    if isinstance(value, ast.Name):
        return value.id not in fields and found.bound[value.id] == 1 and value.id not in found.reached \
            and value.id not in found.strings
    return False


def _only_called(tree: ast.Module, name: str) -> bool:
    """Is every use of `name` in `tree` a call of it (`Tiling(rows=64)`)? (An annotation is an
    expression Python may evaluate: `_: (_T := Tiling) = None` hands the class on, probe h116.)"""
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return all(id(n) in called for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name)
