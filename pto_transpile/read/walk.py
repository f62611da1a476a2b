"""A fast pre-order walk over libcst nodes.

libcst's visitor machinery rebuilds every node it passes (visit-and-replace), which costs
several times a parse on a big kernel. Analysis only needs to read, so this walk follows
the dataclass fields directly (field lists cached per node type), in source order.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from operator import attrgetter
from typing import Any, TypeVar, cast

import libcst as cst

N = TypeVar("N", bound=cst.CSTNode)
_FIELDS: dict[type, tuple[str, ...]] = {}
#: the node types `iter_nodes(skip_functions=True)` does not enter
_FUNCTIONS = (cst.FunctionDef, cst.Lambda)
#: per kind `find` was asked for, whether each node type is of it
_OF_KIND: dict[Any, dict[type, bool]] = {}
#: Fields that hold only layout: whitespace, comments, punctuation, brackets, `async`.
#: Analysis never needs them, and skipping them keeps the walk cheap.
_LAYOUT_FIELDS = frozenset({
    "leading_lines", "lines_after_decorators", "header", "footer", "trailing_whitespace", "newline",
    "semicolon", "comma", "lpar", "rpar", "lbracket", "rbracket", "lbrace", "rbrace", "dot", "relative",
    "equal", "colon", "first_colon", "second_colon", "asynchronous",
})
#: Types whose dataclass field order differs from source order (layout fields left out).
#: tests/read/test_walk.py compares the walk with libcst's own traversal on every node type.
_SOURCE_ORDER: dict[type, tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.TypeAlias: ("name", "type_parameters", "value"),
    cst.Arg: ("keyword", "value"),
    cst.Parameters: ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.MatchCase: ("pattern", "guard", "body"),
}


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        fields = tuple(f.name for f in dataclasses.fields(cls)
                       if not f.name.startswith("whitespace") and f.name not in _LAYOUT_FIELDS)
        ordered = _SOURCE_ORDER.get(cls, ())
        # a field a later libcst adds is still walked (after the ones whose order is known)
        names = _FIELDS[cls] = ordered + tuple(f for f in fields if f not in ordered)
    return names


def iter_nodes(node: cst.CSTNode, skip_functions: bool = False) -> Iterator[cst.CSTNode]:
    """Every node under `node` (itself included), parents before children, in source order.

    With `skip_functions`, nested `def`s and lambdas below `node` are not entered.
    """
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if skip_functions and n is not node and type(n) in _FUNCTIONS:
            continue
        stack.extend(reversed(children(n)))


def find(node: cst.CSTNode, kind: type[N], skip_functions: bool = False) -> list[N]:
    """Every node of `kind` under `node`. Which node types are of a kind is remembered:
    `isinstance` against libcst's classes (abstract base classes) is slow every time."""
    of_kind = _OF_KIND.get(kind)
    if of_kind is None:
        of_kind = _OF_KIND[kind] = {}
    out = []
    for n in iter_nodes(node, skip_functions):
        t = type(n)
        hit = of_kind.get(t)
        if hit is None:
            hit = of_kind[t] = issubclass(t, kind)
        if hit:
            out.append(n)
    return out  # type: ignore[return-value]  # (what `issubclass` let through is of `kind`)


def _is_node(cls: type) -> bool:
    """Whether instances of `cls` are nodes: remembered per type, since `isinstance` against
    libcst's abstract base classes goes through the slow ABC machinery every time."""
    known = _NODE_TYPES.get(cls)
    if known is None:
        known = _NODE_TYPES[cls] = issubclass(cls, cst.CSTNode)
    return known


_NODE_TYPES: dict[type, bool] = {list: False, tuple: False, str: False, type(None): False}
_SUBCLASS: dict[tuple, bool] = {}


def _subclass(cls: type, kind) -> bool:
    """`issubclass(cls, kind)`, remembered: libcst's node bases are ABCs, slow to ask."""
    known = _SUBCLASS.get((cls, kind))
    if known is None:
        known = _SUBCLASS[(cls, kind)] = issubclass(cls, kind)
    return known


def _getter(cls: type) -> Callable[[cst.CSTNode], tuple]:
    """The values of the walked fields of a `cls` node, as one tuple (one C call)."""
    getter = _GETTERS.get(cls)
    if getter is None:
        names = _fields(cls)
        if not names:
            getter = _no_fields
        elif len(names) == 1:
            getter = _one_field(names[0])
        else:
            getter = attrgetter(*names)
        _GETTERS[cls] = getter
    return getter


def _one_field(name: str) -> Callable[[cst.CSTNode], tuple]:
    get = attrgetter(name)

    def getter(node: cst.CSTNode) -> tuple:
        return (get(node),)

    return getter


def _no_fields(node: cst.CSTNode) -> tuple:
    return ()


_GETTERS: dict[type, Callable[[cst.CSTNode], tuple]] = {}


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes the walk follows, in source order (cheaper than `node.children`)."""
    out: list[cst.CSTNode] = []
    known = _NODE_TYPES
    for value in (_GETTERS.get(type(node)) or _getter(type(node)))(node):
        cls = type(value)
        if cls is list or cls is tuple:
            for v in value:
                is_node = known.get(type(v))
                if is_node or (is_node is None and _is_node(type(v))):
                    out.append(v)
        else:
            is_node = known.get(cls)
            if is_node or (is_node is None and _is_node(cls)):
                out.append(value)
    return out


def parameters(fn: cst.FunctionDef) -> list[cst.Param]:
    """Every named parameter of `fn`: positional-only, ordinary and keyword-only."""
    params = fn.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def call_argument(node: cst.Call, index: int | None, name: str | None) -> cst.BaseExpression | None:
    """The expression a call gives a parameter: the `index`-th positional argument, else the
    one given by keyword `name` (None: not given)."""
    positional = [a.value for a in node.args if a.keyword is None and not a.star]
    if index is not None and index < len(positional):
        return positional[index]
    return next((a.value for a in node.args if a.keyword is not None and a.keyword.value == name), None)


def statements_of(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a block. A one-line block (`if x: a = 1`) holds simple statements
    instead: they are listed where statements go, and every walk tells nodes apart by type."""
    return list(cast(Sequence[cst.BaseStatement], suite.body))


def lines_outside(stmts, skip) -> Iterator[cst.SimpleStatementLine]:
    """The simple statement lines of `stmts` and of the blocks below them, in order, but for
    those of the statements in `skip` (a container of statements)."""
    for stmt in stmts:
        if stmt in skip:
            continue
        if type(stmt) is cst.SimpleStatementLine:
            yield stmt
        else:
            for block in blocks(stmt):
                yield from lines_outside(block, skip)


def blocks(stmt: cst.CSTNode, functions: bool = False) -> list[list[cst.BaseStatement]]:
    """The statement lists directly inside a compound statement (an `elif` is a nested
    `if`, listed as a one-statement block); nested `def` bodies only with `functions`."""
    if type(stmt) is cst.With or (functions and type(stmt) is cst.FunctionDef):
        return [statements_of(stmt.body)]
    if type(stmt) is cst.For or type(stmt) is cst.While:  # and the `else` run when the loop ends without `break`
        return [statements_of(stmt.body)] + ([statements_of(stmt.orelse.body)] if stmt.orelse is not None else [])
    if type(stmt) is cst.If:
        out = [statements_of(stmt.body)]
        if stmt.orelse is not None:
            out.append([stmt.orelse] if isinstance(stmt.orelse, cst.If) else statements_of(stmt.orelse.body))
        return out
    if type(stmt) is cst.Try or type(stmt) is cst.TryStar:
        out = [statements_of(stmt.body)] + [statements_of(h.body) for h in stmt.handlers]
        return out + [statements_of(part.body) for part in (stmt.orelse, stmt.finalbody) if part is not None]
    if type(stmt) is cst.Match:
        return [statements_of(case.body) for case in stmt.cases]
    return []


def breaks_out(loop: cst.BaseCompoundStatement) -> bool:
    """Does `loop`'s body hold a `break` that leaves `loop` itself? Without one, its `else:` runs
    whenever the loop is over, as the statements after it do."""
    return next(loop_exits(statements_of(loop.body), {cst.Break}), None) is not None


def loop_exits(stmts, kinds) -> Iterator[cst.CSTNode]:
    """The statements of `kinds` (`cst.Break`, `cst.Continue`, `cst.Return`) among `stmts` and the
    blocks below them that leave the loop `stmts` are the body of: an inner loop's own `break` and
    `continue` stay in it, but those of its `else:` leave this loop too, and a `return` leaves
    every loop; nested `def`s and classes are not looked into. A one-line block (`if x: break`)
    lists its simple statements where statements go (probe h141: such a break was missed)."""
    for stmt in stmts:
        if type(stmt) in kinds:
            yield stmt
        elif isinstance(stmt, cst.SimpleStatementLine):
            yield from (small for small in stmt.body if type(small) in kinds)
        elif isinstance(stmt, (cst.For, cst.While)):
            yield from loop_exits(statements_of(stmt.body), {k for k in kinds if k is cst.Return})
            if stmt.orelse is not None:
                yield from loop_exits(statements_of(stmt.orelse.body), kinds)
        else:
            for block in blocks(stmt):
                yield from loop_exits(block, kinds)


#: The nodes that bind names (`names_stored` reads their targets).
BINDERS = (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.AsName, cst.NamedExpr)


def root_name(node: cst.BaseExpression) -> str | None:
    """`X` of `X.a[1].b`: the name an attribute and subscript chain starts at (None when it starts
    at a call or another expression)."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def names_stored(node: cst.CSTNode, binders=None) -> list[cst.Name]:
    """Names bound by assignments, `:=`, loop targets and `as` clauses under `node`; `binders`,
    when given, are the BINDERS under it, already found."""
    found: list[cst.Name] = []
    for n in iter_nodes(node) if binders is None else binders:
        if type(n) is cst.AssignTarget or type(n) is cst.AnnAssign or type(n) is cst.AugAssign or type(n) is cst.For \
                or type(n) is cst.NamedExpr:  # `(gain := ...)` binds `gain` in the function
            _target_names(n.target, found)
        elif type(n) is cst.AsName:
            _target_names(n.name, found)
    return found


def _target_names(t, found: list[cst.Name]) -> None:
    """The names target `t` binds, appended to `found` (a module function: a nested one that calls
    itself is a reference cycle)."""
    if isinstance(t, cst.Name):
        found.append(t)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            _target_names(el.value, found)


class NodeIndex:
    """`find` for every node below some roots, from one walk of each root.

    Each root is walked once, when a node below it is first asked about (roots in order):
    every node gets its pre-order number and the end of its subtree, and the nodes of each
    type are listed by number. Finding the nodes of a type below a node is then a binary
    search in that list; nested functions, for `skip_functions`, are number ranges left
    out. Nodes below no root are walked as `find` does.
    """

    def __init__(self, roots) -> None:
        self._roots = list(roots)
        self._indexed = 0
        self._where: dict[cst.CSTNode, list] = {}  #: node -> [node, table, number, end of its subtree]
        self._kinds: dict[tuple, list[type]] = {}  #: (table id, kinds) -> node types that are of those kinds

    def find(self, node: cst.CSTNode, kind, skip_functions: bool = False) -> list:
        entry = self._where.get(node)
        while entry is None and self._indexed < len(self._roots):
            self._index(self._roots[self._indexed])
            self._indexed += 1
            entry = self._where.get(node)
        if entry is None:
            return find(node, kind, skip_functions)
        _, table, first, end = entry
        found: list[tuple[int, cst.CSTNode]] = []
        types = self._types(table, kind)
        for cls in types:
            numbers, nodes = table[cls]
            lo, hi = bisect_left(numbers, first), bisect_left(numbers, end)
            found.extend(zip(numbers[lo:hi], nodes[lo:hi], strict=True))
        if len(types) > 1:
            found.sort(key=lambda pair: pair[0])
        if skip_functions:
            nested = [(self._where[f][2], self._where[f][3]) for f in
                      self.find(node, (cst.FunctionDef, cst.Lambda)) if f is not node]
            found = [(n, x) for n, x in found if not any(a < n < b for a, b in nested)]
        return [x for _, x in found]

    def _types(self, table: dict, kind) -> list[type]:
        key = (id(table), kind)
        types = self._kinds.get(key)
        if types is None:
            types = self._kinds[key] = [cls for cls in table if _subclass(cls, kind)]
        return types

    def _index(self, root: cst.CSTNode) -> None:
        table: dict[type, tuple[list[int], list]] = {}
        where = self._where
        number = 0
        stack: list = [root]
        while stack:
            item = stack.pop()
            if type(item) is list:  # the end marker of a subtree
                item[3] = number
                continue
            entry = [item, table, number, 0]
            where[item] = entry
            numbers, nodes = table.get(type(item)) or table.setdefault(type(item), ([], []))
            numbers.append(number)
            nodes.append(item)
            number += 1
            stack.append(entry)
            stack.extend(reversed(children(item)))

    def paths_to(self, root: cst.CSTNode, targets) -> set[cst.CSTNode] | None:
        """The nodes of `targets` below `root` and every node between them
        and `root`; None when `root` is below no root of the index."""
        if self.find(root, type(root)) != [root] or root not in self._where:
            return None
        table = self._where[root][1]
        numbers = [entry[2] for entry in (self._where.get(t) for t in targets)
                   if entry is not None and entry[1] is table]
        on_path: set[cst.CSTNode] = set()
        stack = [root]
        while stack:
            node = stack.pop()
            _, _, first, end = self._where[node]
            if any(first <= n < end for n in numbers):
                on_path.add(node)
                stack.extend(children(node))
        return on_path


def function_choices(value: cst.BaseExpression, function: Callable[[str], str | None]) -> tuple[str, ...]:
    """The functions `value` may be: a name `function` takes for one (its answer: the function's
    name), `_relu if ki == 0 else _neg`, `(_relu, _neg)[ki % 2]`; empty when it may be anything else."""
    if isinstance(value, cst.Name):
        name = function(value.value)
        return (name,) if name else ()
    if isinstance(value, cst.IfExp):
        body, orelse = function_choices(value.body, function), function_choices(value.orelse, function)
        return body + orelse if body and orelse else ()
    if isinstance(value, cst.Subscript) and isinstance(value.value, (cst.Tuple, cst.List)):
        each = [function_choices(e.value, function) for e in value.value.elements]
        return tuple(n for names in each for n in names) if each and all(each) else ()
    return ()
