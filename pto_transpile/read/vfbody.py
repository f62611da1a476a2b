"""What the role analyses read of a `@pl.vector_function`, from libcst or from Python's ast.

A vector function's body is register code: the access scan and the soundness check only
need which parameter each `vf.*` op (or nested vector function) reaches through its
arguments (by position or keyword: an op's keywords are PyPTO's parameter names), following
`p = param + offset` aliases. `VfBody` is exactly that, in source order: the assignments
and the calls, each expression reduced to the chain a root is found along (a name, the
left operand of a binary operation, the value of a subscript or attribute). Vector
functions are often a third of a kernel file, so when nothing in one needs a syntax-tree
node for a report, it is read with Python's parser (`from_ast`), much cheaper than
libcst's, and kept as text (`partial.py`); otherwise from its libcst tree.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import libcst as cst

from pto_api.names import VF_PARAMETERS, vf_signature
from pto_api.ops import VF_OP_ROLES, VF_REGISTER_OPS
from pto_transpile.read.consteval import PlSymbol
from pto_transpile.read.meaning import Value


@dataclass(frozen=True)
class Shape:
    """An expression as far as finding its root parameter goes."""

    kind: str  #: "name", "binop" (follow the left operand), "part" (subscript, attribute: follow the value), "other"
    name: str = ""
    inner: Shape | None = None


OTHER = Shape("other")


@dataclass(frozen=True)
class Alias:
    """`target = value` with one plain name as its target."""

    target: str
    value: Shape


@dataclass(frozen=True)
class OpCall:
    """A call: `vf.<op>(...)` (`op`), or of a plain name (`function`, maybe a vector function)."""

    op: str | None
    function: str | None
    args: tuple[Shape, ...]  #: positional, non-starred arguments
    node: cst.Call | None = None  #: the libcst node, when read from libcst (findings point at it)
    keywords: tuple[tuple[str, Shape], ...] = ()  #: keyword arguments
    #: how an op call names what it is called on: `("vf",)`, `("Vf",)`, `("pl", "Vf")`, ...
    #: (whether the file binds it to `pl.Vf` is `is_vf`'s to say)
    prefix: tuple[str, ...] = ("vf",)


Item = Alias | OpCall


@dataclass(frozen=True)
class VfBody:
    name: str
    params: tuple[str, ...]  #: positional parameters
    items: tuple[Item, ...]  #: aliases and calls in source order (an assignment before the calls in it)


def calls(body: VfBody) -> Iterator[tuple[OpCall, dict[str, str]]]:
    """The calls of `body` in order, each with the aliases (name -> parameter) in force: an
    assignment `q = p` or `q = p + offset` from a parameter-based `p` makes `q` an alias."""
    aliases = {p: p for p in body.params}
    for item in body.items:
        if isinstance(item, Alias):
            based = root(item.value, aliases)
            if based is not None and item.value.kind in ("name", "binop"):
                aliases[item.target] = based
        else:
            yield item, aliases


def root(shape: Shape, aliases: dict[str, str]) -> str | None:
    """The parameter `shape` is based on, through `aliases` (name -> parameter)."""
    while True:
        if shape.kind == "name":
            return aliases.get(shape.name)
        if shape.kind in ("binop", "part") and shape.inner is not None:
            shape = shape.inner
        else:
            return None


# -- from libcst --------------------------------------------------------------------------

def from_cst(fn: cst.FunctionDef, nodes) -> VfBody:
    """`nodes`: the Assign and Call nodes of `fn.body` in pre-order (`FileModel.find`)."""
    items: list[Item] = []
    for node in nodes:
        if isinstance(node, cst.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                items.append(Alias(node.targets[0].target.value, _cst_shape(node.value)))
        else:
            func = node.func
            args = tuple(_cst_shape(a.value) for a in node.args if a.keyword is None and not a.star)
            keywords = tuple((a.keyword.value, _cst_shape(a.value)) for a in node.args if a.keyword is not None)
            prefix = _cst_vf_prefix(func)
            if prefix is not None:
                items.append(OpCall(func.attr.value, None, args, node, keywords, prefix=prefix))
            elif isinstance(func, cst.Name):
                items.append(OpCall(None, func.value, args, node, keywords))
    positional = (*fn.params.posonly_params, *fn.params.params)  # (probe h132: `def f(dst, /, src)`)
    return VfBody(fn.name.value, tuple(p.name.value for p in positional), tuple(items))


def _cst_vf_prefix(func: cst.BaseExpression) -> tuple[str, ...] | None:
    """The dotted name before `.op` when it may be the `Vf` namespace (`vf.op`, `V.op`,
    `pl.Vf.op`); else None."""
    if not isinstance(func, cst.Attribute):
        return None
    parts: list[str] = []
    node: cst.BaseExpression = func.value
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    return _vf_prefix((node.value, *reversed(parts)))


def _vf_prefix(dotted: tuple[str, ...]) -> tuple[str, ...] | None:
    """`name.op` (any name: `Vf` may be imported as anything) or `a.b.Vf.op`."""
    return dotted if len(dotted) == 1 or dotted[-1] == "Vf" else None


def _cst_shape(expr: cst.BaseExpression) -> Shape:
    if isinstance(expr, cst.Name):
        return Shape("name", expr.value)
    if isinstance(expr, cst.BinaryOperation):
        return Shape("binop", inner=_cst_shape(expr.left))
    if isinstance(expr, (cst.Subscript, cst.Attribute)):
        return Shape("part", inner=_cst_shape(expr.value))
    return OTHER


# -- from Python's ast ---------------------------------------------------------------------

def from_ast(fn: ast.FunctionDef) -> VfBody:
    """The same reading from Python's ast: items in the order libcst's pre-order walk meets
    them (an assignment before what its value holds, nested functions included)."""
    items: list[Item] = []
    for node in _assigns_and_calls(fn.body):
        if isinstance(node, ast.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                items.append(Alias(node.targets[0].id, _ast_shape(node.value)))
        else:
            func = node.func
            args = tuple(_ast_shape(a) for a in node.args if not isinstance(a, ast.Starred))
            keywords = tuple((k.arg, _ast_shape(k.value)) for k in node.keywords if k.arg is not None)
            prefix = _ast_vf_prefix(func)
            if prefix is not None and isinstance(func, ast.Attribute):
                items.append(OpCall(func.attr, None, args, None, keywords, prefix=prefix))
            elif isinstance(func, ast.Name):
                items.append(OpCall(None, func.id, args, None, keywords))
    return VfBody(fn.name, tuple(a.arg for a in (*fn.args.posonlyargs, *fn.args.args)), tuple(items))


def _assigns_and_calls(nodes: list) -> list[ast.Assign | ast.Call]:
    """The Assign and Call nodes under `nodes`, in pre-order (`_child_fields`' order): one
    walk with a list for a stack, as a vector function is read for every transpile."""
    out = []
    stack = list(reversed(nodes))
    last_first = _CHILD_FIELDS_LAST_FIRST
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Assign, ast.Call)):
            out.append(node)
        names = last_first.get(type(node))
        for name in names if names is not None else child_fields(type(node))[::-1]:
            value = getattr(node, name, None)  # pushed last to first: popped first to last
            if isinstance(value, ast.AST):
                stack.append(value)
            elif isinstance(value, list):
                for v in reversed(value):
                    if isinstance(v, ast.AST):
                        stack.append(v)
    return out


#: Fields in the order libcst walks them, where ast lists them otherwise. Only the order of
#: assignment statements relative to calls matters (an alias must be known before the calls
#: after it); calls within one statement may come in any order, roles merge either way.
_SOURCE_ORDER = {
    ast.FunctionDef: ("decorator_list", "args", "returns", "body"),
    ast.AsyncFunctionDef: ("decorator_list", "args", "returns", "body"),
    ast.ClassDef: ("decorator_list", "bases", "keywords", "body"),
}
#: Fields that never hold a node: names, constants, flags (and `ctx`, whose nodes are leaves
#: no reading needs). Leaving them out of the walk keeps the order of every node it yields.
_LEAF_FIELDS = frozenset({"ctx", "id", "attr", "arg", "name", "kind", "level", "conversion", "is_async", "simple",
                          "type_comment", "module", "tag"})


def child_fields(cls: type, source_order: bool = True) -> tuple[str, ...]:
    """The fields of an ast class that may hold nodes, in `_SOURCE_ORDER` (else the class's own)."""
    names = (_SOURCE_ORDER.get(cls) if source_order else None) or cls._fields  # type: ignore[attr-defined]
    leaves = _LEAF_FIELDS | ({"value"} if cls is ast.Constant else set())
    return tuple(n for n in names if n not in leaves)


def ast_classes(cls: type = ast.AST) -> list[type]:
    """`cls` and every class below it."""
    out = [cls]
    subclasses: list[type] = type.__subclasses__(cls)
    for sub in subclasses:
        out += ast_classes(sub)
    return out


#: `child_fields` of every ast class, last field first (a walk pushes them so), fixed at import
_CHILD_FIELDS_LAST_FIRST: dict[type, tuple[str, ...]] = {cls: child_fields(cls)[::-1] for cls in ast_classes()}


def _ast_vf_prefix(func: ast.expr) -> tuple[str, ...] | None:
    """`_cst_vf_prefix` on Python's ast."""
    if not isinstance(func, ast.Attribute):
        return None
    parts: list[str] = []
    node = func.value
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return _vf_prefix((node.id, *reversed(parts)))


def _ast_shape(expr: ast.expr) -> Shape:
    if isinstance(expr, ast.Name):
        return Shape("name", expr.id)
    if isinstance(expr, ast.BinOp):
        return Shape("binop", inner=_ast_shape(expr.left))
    if isinstance(expr, (ast.Subscript, ast.Attribute)):
        return Shape("part", inner=_ast_shape(expr.value))
    return OTHER


def is_vf(file, prefix: tuple[str, ...]) -> bool:
    """May `prefix` name the `Vf` namespace of `pl` in `file`: `vf` (PyPTO's name for it), a
    name ending in `Vf`, or a dotted name that resolves to `pl.Vf` (`Vf` imported under another
    name)? Generous on purpose: the roles only place syncs, and the soundness check refuses an
    op called through something that is not `pl.Vf`, naming it."""
    return prefix == ("vf",) or prefix[-1] == "Vf" or file.pl.resolve(prefix) == ("Vf",) \
        or len(prefix) == 1 and bound_to_vf(file, prefix[0])


def bound_to_vf(file, name: str) -> bool:
    """Is module-level `name` bound to `pl.Vf` once and for all (`V = pl.Vf`: the value the
    module surely ends with, as a constant's)?"""
    meaning = file.meaning(name)
    return isinstance(meaning, Value) and isinstance(meaning.value, PlSymbol) and meaning.value.path == ("Vf",)


def param_roles(file, name: str, unknown: Callable[[str, OpCall], str | None],
                active: frozenset = frozenset()) -> dict[int, str]:
    """Role ("R", "W", "RW") per positional parameter of vector function `name`, from the
    `vf.*` ops in its body, through `p = param + offset` aliases and nested vector functions
    (their arguments passed by position or keyword). One definition for the access scan and
    the soundness check; they differ only in `unknown(function, call)`, the role an op the
    table does not know gives the parameters it reaches (None: none; the scan reports it,
    the check assumes "RW")."""
    body = file.vf_body(name)
    roles: dict[str, str] = {}

    def add(param: str | None, role: str | None) -> None:
        if param is not None and role is not None:
            prev = roles.get(param)
            roles[param] = role if prev in (None, role) else "RW"

    for call, aliases in calls(body):
        if call.op is not None and not is_vf(file, call.prefix):
            continue  # `x.Vf.op(...)` of something else than `pl`: not an op of the table
        if call.op is not None:
            table = VF_OP_ROLES.get(call.op)
            if table is None and call.op in VF_REGISTER_OPS:
                continue  # registers only: what a parameter gives it is a scalar
            if table is None:
                reached = [p for p in (root(a, aliases) for a in (*call.args, *dict(call.keywords).values()))
                           if p is not None]
                role = unknown(name, call) if reached else None
                for p in reached:
                    add(p, role)
                continue
            for i, a in op_arguments(call):
                add(root(a, aliases), table[i] if i < len(table) else None)
        elif call.function is not None and call.function in file.vector_functions and call.function not in active:
            inner = param_roles(file, call.function, unknown, active | {name})
            params = file.vf_body(call.function).params
            passed = list(enumerate(call.args)) + [(params.index(k), a) for k, a in call.keywords if k in params]
            for i, a in passed:
                if i in inner:
                    add(root(a, aliases), inner[i])
    return {i: roles[p] for i, p in enumerate(body.params) if p in roles}


def op_arguments(call: OpCall) -> list[tuple[int, Shape]]:
    """The arguments of a `vf.<op>` call by the position of their parameter in PyPTO's signature
    (`pto_api.names.VF_PARAMETERS`: `vf.load_align(tile=t)` gives `t` as argument 0); a keyword
    that is not one of them is left out (Python would raise TypeError)."""
    either = vf_signature(call.op)[0] if call.op in VF_PARAMETERS else ()
    return [*enumerate(call.args), *((either.index(k), a) for k, a in call.keywords if k in either)]
