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
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pto_transpile.read.classnames import plain_members

#: Builtins that never change what they are given (when the file does not rebind them).
PURE_BUILTINS = frozenset({
    "len", "min", "max", "abs", "int", "float", "bool", "str", "repr", "tuple", "list", "sorted", "reversed",
    "range", "sum", "any", "all", "enumerate", "zip", "isinstance", "issubclass", "print", "hash", "id", "round",
    "divmod", "pow", "hex", "oct", "bin", "ord", "chr", "format", "type", "set", "frozenset", "dict", "callable",
})
#: Methods that change the list, dict or set they are called on.
MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault", "popitem",
    "__init__", "__iand__", "__isub__", "__ixor__",
    "add", "discard", "difference_update", "intersection_update", "symmetric_difference_update",
    "__setitem__", "__delitem__", "__iadd__", "__imul__", "__ior__",
})
#: Attributes whose change alters what a function does (its code, defaults, class).
FUNCTION_ATTRIBUTES = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__class__", "__call__"})
#: Attributes that hold a namespace.
_NAMESPACES = frozenset({"__globals__", "__dict__", "f_globals", "f_locals", "__builtins__"})
#: Special methods and attributes whose definition or change alters what the JIT reads of a key
#: class or of `K().is_valid` (`__repr__` and the like do not).
CLASS_ATTRIBUTES = frozenset({
    "__init__", "__new__", "__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__init_subclass__",
    "__set_name__", "__post_init__", "__class_getitem__", "__prepare__", "__call__", "__get__", "__set__",
    "__bases__", "__class__", "__dict__", "__mro__",
})
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
    handed_lines: dict[str, int] = field(default_factory=dict)  #: name -> the line of a call it is handed to
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
            pure: Callable[[str], bool] = lambda callee: False, text: str | None = None,
            words: Iterable[str] | None = None, nested: Iterable[str] = (),
            guarded: dict[str, int] | None = None) -> Effects:
    """The effects of `statements` (every top-level statement's tree); `bound`: the names the
    file binds at module level (a builtin of that name is not the builtin); `pure(callee)`: a
    call through that dotted name changes nothing it is given (`pl`'s ops). A call of a function
    of the file that changes none of its parameters (in its own body, through the calls it makes)
    changes nothing it is given either. `words` (with `text`): the only names and attribute names
    whose effects are asked for; a statement that mentions none of them, nor a word that reaches
    objects another way (`global`, `setattr`, ...), has none of them and is not walked (a
    function given one of those names is walked all the same). `nested`: names whose lists hold
    lists (iterating over them hands those out). `guarded`: names whose every use must be one
    that changes nothing (`_use`), with how many subscripts reach an immutable element (1 for a
    flat list, 0 for a class: only the uses `_use` lists); any other use touches them."""
    statements = list(statements)
    context = _Context(set(bound), pure, frozenset(nested), dict(guarded or {}),
                       _defines_operators(statements, text))
    functions = {stmt.name: i for i, stmt in enumerate(statements)
                 if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if text is not None:
        for name, method in _static_methods(statements, text):  # walked as functions of their own
            functions[name] = len(statements)
            statements.append(method)
    functions.update(_aliases(statements, functions))
    queue = list(range(len(statements)))
    if text is not None and words is not None:
        # `\b(?:words)\b|\b(?:calls)\s*\(`, with the word boundary both start with tested apart
        # (`_mentions`): a pattern that starts with a boundary is tried at every position
        mentions = re.compile(r"(?:" + "|".join(re.escape(w) for w in sorted({*words, *_REACHING})) + r")\b"
                              r"|(?:" + "|".join(sorted(_REACHING_CALLS)) + r")\s*\(")
        # Python reads identifiers in NFKC form (`Ｌ` is `L`): so does the look for mentions
        normal = text if text.isascii() else unicodedata.normalize("NFKC", text)
        lines = _lines(normal)
        queue = [i for i in queue if _mentions(mentions, _source(statements[i], lines))]
    walked: dict[int, Effects] = {}
    while queue:
        i = queue.pop()
        if i in walked:
            continue
        found = walked[i] = Effects()
        top = statements[i]
        parents: dict[int, ast.AST] = {}
        stack: list[tuple[ast.AST, str | None]] = [(top, None)]
        while stack:  # a pre-order walk without the expression contexts (`Load`, `Store`): half the nodes
            node, own = stack.pop()  # `own`: the instance parameter of the method it is in (`self`)
            visit = _VISITS.get(type(node))
            if visit is not None:
                visit(node, found, context, node is top, own)
            if type(node) is ast.Global:
                for name in node.names:  # `global __ROWS` in a class is `_Class__ROWS` (probe h116)
                    mangled = _mangled(name, node, parents)
                    if mangled != name:
                        found.globals.setdefault(mangled, node.lineno)
            if type(node) is ast.Name and node.id in context.guarded:
                how = _use(node, parents, context, top)
                if how is not None:
                    found.touched.setdefault(node.id, (node.lineno, how))
            inner = _instance(node, own, isinstance(parents.get(id(node)), ast.ClassDef))
            for name in _fields(type(node)):
                value = getattr(node, name, None)
                if type(value) is list:
                    for v in value:
                        if isinstance(v, ast.AST):
                            parents[id(v)] = node
                            stack.append((v, _method_self(node, v, inner)))
                elif isinstance(value, ast.AST):
                    parents[id(value)] = node
                    stack.append((value, _method_self(node, value, inner)))
        # a function of the file handed something is walked too: what it does with it counts
        queue += [functions[c] for callees in found.handed.values() for c in callees if c in functions]
    # the functions that change none of their parameters, to a fixed point
    clean = {name for name, i in functions.items() if i in walked}
    while True:
        dirty = {name for name in clean if _changes_parameters(statements[functions[name]], walked[functions[name]],
                                                                clean)}
        if not dirty:
            break
        clean -= dirty
    out = Effects()
    for found in walked.values():
        for attr, line in found.attributes.items():
            out.attributes.setdefault(attr, line)
        for name, line in found.globals.items():
            out.globals.setdefault(name, line)
        for name, line in found.reached.items():
            out.reached.setdefault(name, line)
        for name, why in found.touched.items():
            out.touched.setdefault(name, why)
        for name, callees in found.handed.items():
            out.handed.setdefault(name, set()).update(callees)
            line = found.handed_lines.get(name, 0)
            if any(c not in clean for c in callees):
                out.touched.setdefault(name, (line, "a call is given it"))
    return out


#: A special method's name other than the quiet ones and module dunders (`__name__`, `__all__`).
#: (After a word boundary, tested apart: `_mentions`.)
_SPECIAL = re.compile(r"__(?!(?:init|repr|str|post_init|format|init_subclass|name|main|file|doc|all|future|"
                      r"version|slots|module|qualname|annotations)__\b)[A-Za-z_0-9]+__\b")
#: Builtins that only look at what they are given.
_LOOKING = frozenset({"isinstance", "issubclass", "print", "str", "repr", "len", "id", "hash", "type"})
#: Special methods that run no code on other objects handed to them by an operator.
_QUIET = frozenset({"__init__", "__repr__", "__str__", "__post_init__", "__format__", "__init_subclass__"})


def _defines_operators(statements: list, text: str | None = None) -> bool:
    """Does a class of the file define a special method an operator calls with another object
    (`__eq__`, `__radd__`, `__getitem__`, `__contains__`, ...)? Then `L == x` may change `L`.
    A file whose text names no such method (in NFKC form) defines none: not walked."""
    if text is not None and not _mentions(_SPECIAL, text if text.isascii() else unicodedata.normalize("NFKC", text)):
        return False
    for stmt in statements:
        for node in ast.walk(stmt):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    names = [item.name] if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) else [
                        t.id for t in getattr(item, "targets", ()) if isinstance(t, ast.Name)]
                    if any(n.startswith("__") and n.endswith("__") and n not in _QUIET for n in names):
                        return True
    return False


def _instance(node: ast.AST, own: str | None, method: bool) -> str | None:
    """The instance parameter the children of `node` see: the method's own (`method`: `node` is
    a method, `own` its first parameter); in a function nested in it, the same unless one of its
    parameters hides it."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and not method:
        names = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
        return own if own is not None and own not in names else None
    return own


def _method_self(parent: ast.AST, child: ast.AST, inherited: str | None) -> str | None:
    """A regular method's first parameter (`self`) for the nodes of its body: an attribute set
    through it is the instance's, never the class's. None elsewhere (a `classmethod`'s first
    parameter is the class)."""
    if isinstance(parent, ast.ClassDef) and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
        decorated = {d.id for d in child.decorator_list if isinstance(d, ast.Name)}
        args = [*child.args.posonlyargs, *child.args.args]
        if child.decorator_list and not decorated <= {"property"} or not args:
            return None
        return args[0].arg
    return inherited


def _mangled(name: str, node: ast.AST, parents: dict[int, ast.AST]) -> str:
    """`name` as Python reads it at `node`: `__x` inside a class body (or a function in it) is
    `_Class__x`, the class's name without its leading underscores."""
    if not name.startswith("__") or name.endswith("__"):
        return name
    at = parents.get(id(node))
    while at is not None and not isinstance(at, ast.ClassDef):
        at = parents.get(id(at))
    return f"_{at.name.lstrip('_')}{name}" if at is not None and at.name.strip("_") else name


#: the depth (`guarded`) of a data-class instance whose fields cannot change in place: reading a
#: field changes nothing, anything else is judged as a use of an object
FIELDS_ONLY = -1


def _use(name: ast.Name, parents: dict[int, ast.AST], context: _Context, top: ast.AST) -> str | None:
    """How a use of a guarded name may change its object, or None when it cannot: an item read
    down to an immutable element, a comparison, a `pl` op's argument, a builtin that changes
    nothing given a flat list, arithmetic making a new flat list, a loop over a flat list, a
    module-level alias (itself guarded), a class's attribute read, `isinstance`, an annotation."""
    if isinstance(name.ctx, (ast.Store, ast.Del)):
        holder = parents.get(id(name))
        while isinstance(holder, (ast.Tuple, ast.List, ast.Starred)):  # `FIRST, *REST = ...`
            holder = parents.get(id(holder))
        return None if holder is top else "a name in a function or class body binds it"
    depth = context.guarded[name.id]
    node: ast.AST = name
    parent = parents.get(id(node))
    if depth == FIELDS_ONLY:  # a data-class instance of unchanging fields: `TILING.rows` read, nothing else
        if isinstance(parent, ast.Attribute) and parent.value is node and not parent.attr.startswith("_") \
                and isinstance(parent.ctx, ast.Load):
            return None
        if _field_by_getattr(parent, node, context):
            return None
        # (`type(TILING).stride = ...` changes its class: probe h116; every other use is judged so)
        return "an attribute of it is assigned" if isinstance(parent, ast.Attribute) \
            else "it is used where it may change"
    levels = 0
    fresh = False  # the outermost subscript a slice: a new list of the items at `levels`
    while isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
        fresh = isinstance(parent.slice, ast.Slice)
        # an item is one level down; a slice is a new list of the same items (`L[:][0]` is `L[0]`)
        node, parent, levels = parent, parents.get(id(parent)), levels + (0 if fresh else 1)
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return "an item of it is assigned"
    if depth and (levels >= depth or fresh and depth - levels <= 1):
        return None  # an element that cannot change, or a new list of such, whatever is done with it
    flat = depth and depth - levels <= 1
    if isinstance(parent, ast.FormattedValue) or not context.operators and (
            isinstance(parent, ast.Compare) or isinstance(parent, ast.Subscript) and parent.slice is node):
        return None
    if isinstance(parent, ast.Assign) and parent is top and parent.value is node \
            and all(isinstance(t, ast.Name) for t in parent.targets):
        return None  # `A = L` at module level: `A` holds the list too, and is guarded as well
    if flat and isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return None
    if flat and isinstance(parent, ast.Assign) and parent.value is node \
            and all(isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets):
        return None  # `e0, e1 = EV_FREE`: its items bound, each a value that cannot change
    if flat and isinstance(parent, ast.BinOp) and not context.operators:
        return None
    if isinstance(parent, ast.Attribute) and parent.value is node and not depth:
        above = parents.get(id(parent))
        # `K.A` read where the field object goes nowhere (`K.A == 1` is not `F = K.A`)
        looked_at = isinstance(above, ast.Call) and parent in above.args and isinstance(above.func, ast.Name) \
            and above.func.id in _LOOKING and above.func.id not in context.shadowed  # `isinstance(K.A, ...)`
        if isinstance(parent.ctx, ast.Load) and (isinstance(above, ast.FormattedValue) or looked_at
                                                 or not context.operators and isinstance(above, ast.Compare)):
            return None
    if isinstance(parent, ast.arg) or isinstance(parent, ast.AnnAssign) and parent.annotation is node:
        return None
    if flat and isinstance(parent, ast.Attribute) and parent.attr == "copy" and isinstance(parent.ctx, ast.Load):
        above = parents.get(id(parent))
        if isinstance(above, ast.Call) and above.func is parent and not above.args and not above.keywords:
            return None  # `rows = ROWS.copy()`: a new list of what cannot change
    call = parents.get(id(parent)) if isinstance(parent, (ast.keyword, ast.Starred)) else parent
    if isinstance(call, ast.Call) and call.func is not node and call.func is not parent:
        callee = _dotted(call.func)
        builtin = callee if isinstance(call.func, ast.Name) and callee not in context.shadowed else ""
        if callee and context.pure(callee) or builtin in ("isinstance", "issubclass", "len", "print", "str", "repr",
                                                          "id", "hash", "bool", "type") \
                or flat and builtin in PURE_BUILTINS:
            return None
        if builtin in PURE_BUILTINS:  # `max(L2)[0] = 1`, `for x in reversed(L2)`: inner lists handed out
            return "a builtin hands out what it holds"
        return None if callee else "a call is given it"  # a named callee: judged as `handed`
    return "it is used where it may change"


def _static_methods(statements: list[ast.AST], text: str) -> list[tuple[str, ast.FunctionDef]]:
    """(`Class.method`, its `def`) for each `@staticmethod` a call through that name runs: of a
    class whose members nothing can replace (`classnames.plain_members`)."""
    return [(f"{cls.name}.{method.name}", method) for cls in statements
            if isinstance(cls, ast.ClassDef) and plain_members(cls, text)
            for method in cls.body if isinstance(method, ast.FunctionDef)]


def _aliases(statements: list[ast.AST], functions: dict[str, int]) -> dict[str, int]:
    """Module names bound once to a function of the file, itself bound once (`free_set =
    _free_set`, `a, b = _a, _b`), or to a static method among `functions` (`halve =
    Epilogue.halve`, whose class nothing can change): a call through one runs that function.
    (The file is walked for its bindings only where a top-level assignment names a function of
    the file.)"""
    candidates = []
    for stmt in statements:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        target, value = stmt.targets[0], stmt.value
        pairs = [(target, value)] if isinstance(target, ast.Name) else \
            list(zip(target.elts, value.elts, strict=True)) if isinstance(target, (ast.Tuple, ast.List)) and isinstance(
                value, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts) else []
        candidates += [(alias.id, _dotted(named)) for alias, named in pairs
                       if isinstance(alias, ast.Name) and _dotted(named) in functions]
    if not candidates:
        return {}
    stores: dict[str, int] = {}
    members = {id(m) for stmt in statements for node in ast.walk(stmt) if isinstance(node, ast.ClassDef)
               for m in node.body}  # a class body's `def`s bind the class's attributes
    for stmt in statements:
        for node in ast.walk(stmt):
            if id(node) in members and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            names = [node.id] if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) else \
                list(node.names) if isinstance(node, (ast.Global, ast.Nonlocal)) else \
                [node.name] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else \
                [a.asname or a.name for a in node.names] if isinstance(node, (ast.Import, ast.ImportFrom)) else []
            for name in names:
                stores[name] = stores.get(name, 0) + 1
    return {alias: functions[named] for alias, named in candidates
            if stores.get(alias) == 1 and ("." in named or stores.get(named) == 1)}


def _changes_parameters(fn: ast.AST, found: Effects, clean: set[str]) -> bool:
    """Does function `fn` (its effects `found`) change a parameter's object: in place, by handing
    it to a call of anything but a function in `clean`, or through `*args` / `**kwargs`?"""
    args = fn.args  # type: ignore[attr-defined]
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    if args.vararg or args.kwarg or params & set(found.touched):
        return True
    return any(c not in clean for p in params & set(found.handed) for c in found.handed[p])


def _source(stmt: ast.AST, lines: list[str]) -> str:
    """The lines of a top-level statement, its decorators included."""
    first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])  # type: ignore[attr-defined]
    return "".join(lines[first - 1:stmt.end_lineno])  # type: ignore[attr-defined]


_LINE = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")
_BOUNDARY = re.compile(r"\b")


def _lines(text: str) -> list[str]:
    """`_LINE.split(text)`: the lines, each with its line end. Without a `\r` the ends are the
    `\n`s, and `str.split` finds them (the look-behinds try every position)."""
    if "\r" in text:
        return _LINE.split(text)
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + parts[-1:]


def _mentions(pattern: re.Pattern, text: str) -> bool:
    """Whether a word boundary (`\\b`) followed by `pattern` matches somewhere in `text`: the
    leftmost match of `pattern` from the position reached, taken where a word boundary is at
    its start, else searched again from the next position (the boundary consumes nothing:
    where it holds, the rest matches as `pattern` does). A pattern that starts with a boundary
    is tried at every position; one that starts with its words is not."""
    pos = 0
    while True:
        m = pattern.search(text, pos)
        if m is None:
            return False
        if _BOUNDARY.match(text, m.start()):
            return True
        pos = m.start() + 1
#: Words with which a statement may reach objects without naming them.
_REACHING = frozenset({"global", "nonlocal", "__builtins__", "builtins", "__dict__", "__class__"})
#: The same, as calls (`type=` is a keyword of many `pl` ops, `type(k)` a call).
_REACHING_CALLS = frozenset({"setattr", "delattr", "getattr", "vars", "type", "get_objects", "get_referrers",
                             "get_referents"})


@dataclass(frozen=True)
class _Context:
    shadowed: set  #: builtins' names the file binds
    pure: Callable[[str], bool]  #: calls that change nothing they are given, by dotted name
    nested: frozenset  #: names whose lists hold lists
    guarded: dict  #: names whose every use is judged (`_use`) -> subscripts down to an immutable element
    #: a class of the file defines an operator (`__eq__`, `__radd__`, `__getitem__`, ...): a
    #: comparison or arithmetic may run its code with what it is given
    operators: bool = False


def _visit(node: ast.AST, out: Effects, context: _Context, top: bool = False, own: str | None = None) -> None:
    line = getattr(node, "lineno", 0)
    # the object itself, or an item of it, bound to another name or handed out (`k.__name__` is not)
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None and not top \
            and not isinstance(node.value, ast.Attribute) and not _immutable_part(node.value, context) \
            and not _unpacks_flat(node, context):
        _touch(out, node.value, line, "another name is bound to it")  # `a = L` in a function: `a.append(1)`
    elif isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)) and node.value is not None \
            and not isinstance(node.value, ast.Attribute):
        _touch(out, node.value, line, "a function hands it out")
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and _root(node.iter) in context.nested:
        _touch(out, node.iter, line, "its lists are handed out by a loop")
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
        if own is None or _root(node.value) != own:  # `self.x = ...` in a method: the instance's
            out.attributes.setdefault(node.attr, line)
        _touch(out, node.value, line, "an attribute of it is set")
    elif isinstance(node, ast.Attribute) and node.attr == "__kwdefaults__":
        # a function's keyword defaults are a dict: reading it hands out what changes them
        # (`f.__kwdefaults__["row"] = 24`, `.update(...)`: probe h99)
        out.attributes.setdefault(node.attr, line)
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
            if not _immutable_part(el, context):  # (`[pl.DYNAMIC, TILING.cols]` holds a number)
                _touch(out, el, line, "it is held by another value")
    elif isinstance(node, ast.Dict):
        for part in (*node.keys, *node.values):
            if part is not None and not _immutable_part(part, context):
                _touch(out, part, line, "it is held by another value")


def _unpacks_flat(node: ast.AST, context: _Context) -> bool:
    """`e0, e1 = EV_FREE`: an unpacking binds the items of a value, not the value itself, so a
    list of numbers is bound to no other name by it (one holding lists hands those out, and a
    value made by the statement, `a, b = L, M`, binds what it holds: both judged as usual)."""
    return isinstance(node, ast.Assign) and all(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets) \
        and isinstance(node.value, ast.Name) and node.value.id not in context.nested


#: the node types `_visit` looks at; the others are only walked through
_VISITS: dict[type, Callable[..., None]] = {t: _visit for t in (
    ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.Return, ast.Yield, ast.YieldFrom, ast.For, ast.AsyncFor,
    ast.comprehension, ast.Attribute, ast.Subscript, ast.Global, ast.Nonlocal, ast.Call, ast.Name, ast.Import,
    ast.ImportFrom, ast.List, ast.Tuple, ast.Set, ast.Dict)}
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    """A node type's fields that may hold nodes, but the expression context (`Load`, `Store`)."""
    found = _FIELDS.get(kind)
    if found is None:
        found = _FIELDS[kind] = tuple(f for f in getattr(kind, "_fields", ()) if f != "ctx")
    return found


def _call(node: ast.Call, out: Effects, context: _Context, line: int) -> None:
    func = node.func
    name = func.id if isinstance(func, ast.Name) and func.id not in context.shadowed else ""
    callee = _dotted(func)
    setter = isinstance(func, ast.Attribute) and func.attr in ("__setattr__", "__delattr__")
    if name in ("setattr", "delattr") and node.args or setter and node.args:
        # `setattr(o, "a", v)`, `object.__setattr__(o, "a", v)`, `o.__setattr__("a", v)`: the name
        # is the second argument, or the first of a bound `__setattr__`
        given: ast.AST | None = node.args[1] if len(node.args) > 1 else None
        if setter and isinstance(func, ast.Attribute) and len(node.args) == (1 if func.attr == "__delattr__" else 2):
            given = node.args[0]
        out.attributes.setdefault(given.value if isinstance(given, ast.Constant) and isinstance(given.value, str)
                                  else ANY, line)
    if callee.rpartition(".")[2] in ("get_objects", "get_referrers", "get_referents"):
        out.reached.setdefault("gc", line)  # every object the collector tracks, named or not
    if name == "getattr" and len(node.args) > 1:
        attr = node.args[1]
        root = _root(node.args[0])
        if root is not None and not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)
                                     and attr.value not in _NAMESPACES):
            out.reached.setdefault(root, line)
    if isinstance(func, ast.Attribute) and func.attr in MUTATING_METHODS:
        _touch(out, func.value, line, f"its `{func.attr}` is called")
    if name in PURE_BUILTINS or callee and context.pure(callee):
        return
    for arg in (*node.args, *(k.value for k in node.keywords)):
        root = _root(arg.value if isinstance(arg, ast.Starred) else arg)
        if isinstance(arg, ast.Name) and context.guarded.get(arg.id) == FIELDS_ONLY \
                and _field_by_getattr(node, arg, context):
            continue  # `getattr(TILING, "rows")` reads a field, as `TILING.rows` does
        if root is not None and not _immutable_item(arg, context):
            out.handed.setdefault(root, set()).add(callee)
            out.handed_lines.setdefault(root, line)


def _immutable_item(arg: ast.AST, context: _Context) -> bool:
    """Is `arg` an item of a guarded list deep enough that it cannot change (`EV[(t - 1) % 2]` of a
    flat list of numbers)? A call given it is not given the list (probe h148: a call through a
    local alias given an event id of `EV` made the list "not a compile-time constant")."""
    levels = 0
    while isinstance(arg, ast.Subscript) and not isinstance(arg.slice, ast.Slice):
        arg, levels = arg.value, levels + 1
    depth = context.guarded.get(arg.id) if isinstance(arg, ast.Name) else None
    return depth is not None and depth > 0 and levels >= depth  # (FIELDS_ONLY is below 0)


def _field_by_getattr(call: ast.AST | None, instance: ast.AST, context: _Context) -> bool:
    """`getattr(TILING, "rows")` (with a default or not): the builtin, not a name of the file, given
    the instance and a field's name as a literal, as `TILING.rows` reads it."""
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "getattr" \
        and "getattr" not in context.shadowed and not call.keywords and len(call.args) in (2, 3) \
        and call.args[0] is instance and isinstance(call.args[1], ast.Constant) \
        and isinstance(call.args[1].value, str) and call.args[1].value.isidentifier() \
        and not call.args[1].value.startswith("_")


def _immutable_part(node: ast.AST, context: _Context) -> bool:
    """`L[i]` or `L[a:b]` of a guarded list down to its immutable elements (`x = ROWS[0]`, `rows =
    ROWS[:]` of a flat list), or a field of a data-class instance whose fields cannot change
    (`TILING.cols`: a number or a string): a name or a display holding it shares nothing with the
    object that can change."""
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name) \
            and context.guarded.get(node.value.id) == FIELDS_ONLY:
        return not node.attr.startswith("_")
    levels = 0
    fresh = isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)
    while isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        levels += 0 if isinstance(node.slice, ast.Slice) else 1  # a slice is a new list of the same items
        node = node.value
    depth = context.guarded.get(node.id, 0) if isinstance(node, ast.Name) else 0
    return depth > 0 and (levels >= depth or fresh and depth - levels <= 1)


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
