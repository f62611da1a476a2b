"""Which classes of a file the checks follow the members of, and the static methods they run.

A call through `Class.method` runs the `@staticmethod` the class body defines only while
nothing replaces it: no base (whose `__init_subclass__` may), metaclass or class decorator,
no rebinding of `staticmethod`, of the method or of the class (through an alias, which could
set a member). `plain_members` says which classes are so; the module-name analysis, the access
scan and the soundness check's interpreter follow the members of those alone. Read from the
text and its tokens with patterns that err towards no: a false alarm only leaves the class
unfollowed, and a call into it refused.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Any

import libcst as cst

from pto_transpile.read.meaning import Class

#: An assignment's operator after a target (`=`, `+=`, `:=`), not a comparison.
_ASSIGNS = r"\s*(?:[-+*/%&|^@:]|//|<<|>>|\*\*)?=(?!=)"


def name_bound(text: str, name: str) -> bool:
    """Whether `text` may bind `name` anywhere (`staticmethod = f`, `import x as staticmethod`)."""
    n = re.escape(name)
    return re.search(rf"\b{n}{_ASSIGNS}|\b(?:as|global|nonlocal|del|def|class)\s+{n}\b|\bimport\b[^\n]*\b{n}\b"
                     rf"|\bfor\b[^\n:]*\b{n}\b[^\n:]*\bin\b", text) is not None


def attribute_rebound(text: str, cls: str, attr: str) -> bool:
    """Whether `text` may set or delete `cls.attr` outside the class body (`Ev.notify = f`,
    `setattr(Ev, ...)`, `del Ev.notify`)."""
    c, a = re.escape(cls), re.escape(attr)
    return re.search(rf"\b{c}\s*\.\s*{a}{_ASSIGNS}|\bdel\b[^\n]*\b{c}\s*\.\s*{a}\b"
                     rf"|\b(?:setattr|delattr)\s*\(\s*{c}\b|\b{c}\s*\.\s*__dict__", text) is not None


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
    return _named_only_as_class(text, tree.name) and not any(attribute_rebound(text, tree.name, n) for n in names)


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
