"""What the whole file may do to module-level objects, read from Python's syntax tree of every
statement: module level, function bodies, class bodies and comprehensions alike (any of them may
run at import, or later, before the kernel is compiled).

A module-level function or class is what its statement says unless something changes the object
itself, and a module-level list unless something changes it in place. Names are no guide to the
object (`K2 = K; K2.A = ...`, `type(obj).A = ...`, `(L)[0] = 1`, `for L[0] in ...`), so the file
is read for what can change an object at all: the attribute names it sets or deletes anywhere (on
any object), the names whose objects it hands to calls or puts in other values, and the names it
declares `global`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

#: Builtins that never change what they are given (when the file does not rebind them).
PURE_BUILTINS = frozenset({
    "len", "min", "max", "abs", "int", "float", "bool", "str", "repr", "tuple", "list", "sorted", "reversed",
    "range", "sum", "any", "all", "enumerate", "zip", "isinstance", "issubclass", "print", "hash", "id", "round",
    "divmod", "pow", "hex", "oct", "bin", "ord", "chr", "format", "type", "set", "frozenset", "dict", "callable",
})
#: Methods that change the list, dict or set they are called on.
MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault", "popitem",
    "add", "discard", "difference_update", "intersection_update", "symmetric_difference_update",
    "__setitem__", "__delitem__", "__iadd__", "__imul__", "__ior__",
})
#: Attributes whose change alters what a function does (its code, defaults, globals, what it wraps).
FUNCTION_ATTRIBUTES = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__globals__", "__dict__",
                                 "__class__", "__wrapped__", "__call__", "__closure__"})
#: Attributes that hold a namespace.
_NAMESPACES = frozenset({"__globals__", "__dict__", "f_globals", "f_locals", "__builtins__"})
#: the attribute name of a `setattr`/`delattr` whose name is computed: any attribute
ANY = "*"


@dataclass
class Effects:
    #: attribute name set or deleted anywhere (on any object; `ANY` for a computed name) -> line
    attributes: dict[str, int] = field(default_factory=dict)
    #: name declared `global` in a function or class -> line
    globals: dict[str, int] = field(default_factory=dict)
    #: name whose object a use may change (item or attribute set through it, a method that changes
    #: it called, handed to a call other than a pure builtin, put in a display) -> (line, how)
    touched: dict[str, tuple[int, str]] = field(default_factory=dict)
    #: name handed to a call -> the callees' names (a dotted name, "" when not a name)
    handed: dict[str, set[str]] = field(default_factory=dict)
    #: name whose namespace the file may reach by an attribute it does not spell (`getattr(f,
    #: "__glo" + "bals__")`), and `__builtins__` / `builtins` when it reaches the builtins -> line
    reached: dict[str, int] = field(default_factory=dict)

    def attribute_set(self, names: Iterable[str]) -> tuple[str, int] | None:
        """The first of `names` (or a computed name) set or deleted as an attribute somewhere."""
        for name in (*names, ANY):
            if name in self.attributes:
                return name, self.attributes[name]
        return None


def effects(statements: Iterable[ast.AST], bound: Iterable[str] = (),
            pure: Callable[[str], bool] = lambda callee: False) -> Effects:
    """The effects of `statements` (every top-level statement's tree); `bound`: the names the
    file binds at module level (a builtin of that name is not the builtin); `pure(callee)`: a
    call through that dotted name changes nothing it is given (`pl`'s ops). A call of a function
    of the file that changes none of its parameters (in its own body, through the calls it makes)
    changes nothing it is given either."""
    statements = list(statements)
    shadowed = set(bound)
    functions = {stmt.name: stmt for stmt in statements if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))}
    clean = set(functions)
    while True:  # the functions whose parameters nothing changes, to a fixed point
        context = _Context(shadowed, pure, clean)
        dirty = set()
        for name in clean:
            inner = Effects()
            for node in ast.walk(functions[name]):
                _visit(node, inner, context)
            params = {a.arg for a in (*functions[name].args.posonlyargs, *functions[name].args.args,
                                      *functions[name].args.kwonlyargs)}
            if params & set(inner.touched) or functions[name].args.vararg or functions[name].args.kwarg:
                dirty.add(name)
        if not dirty:
            break
        clean -= dirty
    out = Effects()
    context = _Context(shadowed, pure, clean)
    for stmt in statements:
        for node in ast.walk(stmt):
            _visit(node, out, context)
    return out


@dataclass(frozen=True)
class _Context:
    shadowed: set  #: builtins' names the file binds
    pure: Callable[[str], bool]  #: calls that change nothing they are given, by dotted name
    clean: set  #: functions of the file that change none of their parameters


def _visit(node: ast.AST, out: Effects, context: _Context) -> None:
    line = getattr(node, "lineno", 0)
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
        out.attributes.setdefault(node.attr, line)
        _touch(out, node.value, line, "an attribute of it is set")
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
        _touch(out, node.value, line, "an item of it is assigned")
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        for name in node.names:
            out.globals.setdefault(name, line)
    elif isinstance(node, ast.Call):
        _call(node, out, context, line)
    elif isinstance(node, ast.Name) and node.id == "__builtins__":
        out.reached.setdefault("__builtins__", line)
    elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (alias.name if isinstance(node, ast.Import) else node.module or "").split(".")[0] == "builtins"
            for alias in node.names):
        out.reached.setdefault("builtins", line)
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)) and isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
        for el in node.elts:
            _touch(out, el, line, "it is held by another value")
    elif isinstance(node, ast.Dict):
        for part in (*node.keys, *node.values):
            if part is not None:
                _touch(out, part, line, "it is held by another value")


def _call(node: ast.Call, out: Effects, context: _Context, line: int) -> None:
    func = node.func
    name = func.id if isinstance(func, ast.Name) and func.id not in context.shadowed else ""
    if name in ("setattr", "delattr") and node.args:
        given = node.args[1] if len(node.args) > 1 else None
        out.attributes.setdefault(given.value if isinstance(given, ast.Constant) and isinstance(given.value, str)
                                  else ANY, line)
    if name == "getattr" and len(node.args) > 1:
        attr = node.args[1]
        root = _root(node.args[0])
        if root is not None and not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)
                                     and attr.value not in _NAMESPACES):
            out.reached.setdefault(root, line)
    if isinstance(func, ast.Attribute) and func.attr in MUTATING_METHODS:
        _touch(out, func.value, line, f"its `{func.attr}` is called")
    callee = _dotted(func)
    if name in PURE_BUILTINS or callee and (context.pure(callee) or callee in context.clean):
        return
    for arg in (*node.args, *(k.value for k in node.keywords)):
        root = _root(arg.value if isinstance(arg, ast.Starred) else arg)
        if root is not None:
            out.touched.setdefault(root, (line, "a call is given it"))
            out.handed.setdefault(root, set()).add(callee)


def _touch(out: Effects, node: ast.AST, line: int, how: str) -> None:
    root = _root(node)
    if root is not None:
        out.touched.setdefault(root, (line, how))


def _root(node: ast.AST) -> str | None:
    """`X` of `X`, `X.a[1].b`, `X[0]`; None for anything else (a call's result, a literal)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted(node: ast.AST) -> str:
    """The dotted name a call is made through (`math.ceil`), or "" when it is not a name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])
