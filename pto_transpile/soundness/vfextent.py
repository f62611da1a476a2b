"""The bytes a `@pl.vector_function` call reads and writes, from its body, without running it.

Register code addresses a tile by raw element offsets from the tile's first element, so a
vector function may reach bytes outside the tile it is given: the next slot of the group,
another buffer. Knowing only *which* parameters are read or written (the access roles) would
then hide a conflict. This module evaluates the body with Python's `ast` on abstract values:
a tile argument is a pointer (its argument, a byte offset, the element size and the declared
shape), scalars are numbers, registers are opaque but for the width of their lanes, and masks
are the number of leading register bytes they enable. Loops over `pl.range`/`range` with static
bounds run; branches whose condition is not static run both ways. The result is, per tile
argument, the byte intervals read and written relative to the argument's first byte.

Addressing is the hardware's: a pointer moves by elements of its tile's dtype; an offset is
elements too, a `[row, col]` offset `row * shape[1] + col` of the declared shape. A NORM load
reads one 256-byte register; a broadcast load (`BRC_B8/16/32`, or `BRC` by register width)
reads one element. A NORM store writes the enabled lanes of the register, whose lanes have the
register's dtype, not the tile's (the `dtype` of the op that made it, else the tile's for a
load, the scalar literal's for `full`, the source's for lane-wise ops): a lane is on when the
mask bit of its first byte is, so the enabled bytes are rounded up to whole lanes; a register
whose lanes are not known is taken with the widest. A `DATA_BLOCK_COPY` store writes each
32-byte block that has an enabled byte at `start + b * block_stride * 32` (its 4th argument
is `block_stride`, not an offset: the start is the target, or its cursor). `post_update=True`
reads or writes at a cursor, one per target address per call (shared with nested vector
functions), that starts at the target and moves by the offset (NORM) or by `repeat_stride *
32` bytes (`DATA_BLOCK_COPY`).

A loop whose trip count is known only within bounds (`Bounded`: a run-time value clamped,
`min(d, 16)`) runs to its largest count, and what it stores is a superset; it may not move a
cursor. Anything else that touches memory (a `vf.*` memory op other than
`load_align`/`store_align`, an offset or trip count that is not static, a statement the
evaluator does not know) raises `Unmodelled`: the check then refuses instead of guessing.
"""

from __future__ import annotations

import ast
import copy
import math
import operator
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pto_api.memory import DTYPE_BITS, element_bytes
from pto_api.names import VF_PARAMETERS, vf_bind
from pto_api.ops import VF_MACHINE_STATE_OPS, VF_OP_ROLES, VF_REGISTER_OPS, VF_RESULT_DTYPES, VF_SAME_DTYPE_OPS
from pto_api.registers import (
    BLOCK_BYTES,
    BLOCKS_PER_REG,
    BROADCAST_BYTES,
    FLOAT_LITERAL_DTYPE,
    INT_LITERAL_DTYPE,
    MASK_PATTERNS,
    REG_BYTES,
)
from pto_transpile.read.consteval import range_length
from pto_transpile.read.vfbody import ast_classes, child_fields

#: Every `vf` op a vector function may call (the memory ops, modelled or refused when run, and
#: those that only touch registers).
_VF_OPS = frozenset(VF_OP_ROLES) | VF_REGISTER_OPS | {"load_align", "store_align"}
#: Register ops one call may run before the evaluator gives up.
OP_BUDGET = 200_000
#: Intervals kept per argument and direction; more are merged into their hull.
MAX_INTERVALS = 16


class Unmodelled(Exception):
    """The body cannot be followed statically; the message says why."""


@dataclass(frozen=True)
class TileArg:
    """What the evaluator needs of a tile argument: element size and declared shape."""

    elem: int
    shape: tuple
    #: where the tile starts, in bytes from the lowest-addressed tile argument of its memory,
    #: when that matters (None: not given, each argument's cursors its own): `post_update`
    #: cursors are one per target address, so pointers of two arguments at one address share
    #: one (`VectorFunctions.cursor_starts`)
    base: int | None = None
    memory: str = ""


@dataclass(frozen=True)
class Extent:
    """Bytes one argument's tile pointer reaches, relative to its first byte: `[lo, hi)` intervals."""

    reads: tuple[tuple[int, int], ...]
    writes: tuple[tuple[int, int], ...]
    #: the writes are exactly the bytes the call writes (else a superset of them)
    exact: bool = False


@dataclass(frozen=True)
class _Ptr:
    arg: int  #: index of the tile argument of the outermost call
    offset: int  #: bytes from that argument's first byte
    tile: TileArg


@dataclass(frozen=True)
class _Mask:
    nbytes: int  #: leading register bytes enabled
    exact: bool = True  #: False: not known, all of them taken


class _Opaque:
    """A value the evaluator does not follow."""


_REG = _Opaque()
#: the widest lane a register may have (int64): a store of a register whose lanes are not known
#: writes whole lanes of this width, a superset of what narrower lanes write under the same mask
_WIDEST_LANE = max(element_bytes(d) for d in DTYPE_BITS)

_UNKNOWN = _Opaque()
#: pass this for a scalar argument whose value is not known
UNKNOWN = _UNKNOWN


@dataclass(frozen=True)
class Bounded(_Opaque):
    """A scalar argument not known but for bounds (`lo <= value <= hi`, None: no bound): a
    run-time value clamped, `min(d, 16)`. Unknown to everything but a loop it bounds, which is
    followed to its largest trip count, its writes then a superset (not exactly the bytes)."""

    lo: int | None
    hi: int | None

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.Div: operator.truediv, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}
_BUILTINS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "abs": abs, "int": int, "len": len}


class VectorFunctions:
    """Evaluates the vector functions of one file; results are cached per argument signature."""

    def __init__(self, source_of: Callable[[str], str | ast.FunctionDef | None], constant: Callable[[str], Any],
                 stale_defaults: Callable[[str], bool] = lambda name: False,
                 binds: Callable[[str], bool] = lambda name: False, pl_names: frozenset = frozenset({"pl"}),
                 is_vf: Callable[[str], bool] = lambda name: name == "vf"):
        """`source_of(name)`: the text of vector function `name`, or its syntax tree when it was
        already read with Python's parser (None: not a vector function);
        `constant(name)`: the value of a module-level name (anything not a number: unknown);
        `stale_defaults(name)`: whether a name its defaults mention was rebound after its `def`
        (the defaults are then unknown: Python computed them before);
        `binds(name)`: whether the file binds `name` (a `def min` is not the builtin);
        `pl_names`: the names of the `pl` module (`pl.MaskPattern.ALL` is read as "ALL");
        `is_vf(name)`: whether `name` is the `pl` module's `Vf` (`vf.load_align`): imported as it,
        or `vf` where the file binds nothing to it (the name PyPTO reserves for it)."""
        self._source_of = source_of
        self.binds = _remembered(binds)
        self.pl_names = pl_names
        self.is_vf = _remembered(is_vf)
        self._constant_of = constant
        self.stale_defaults = stale_defaults
        self._constants: dict[str, Any] = {}
        self._trees: dict[str, ast.FunctionDef | None] = {}
        self._refused: dict[str, Unmodelled] = {}  #: vector functions outside the subset (`_Subset`)
        #: per-node analyses of the bodies (pruning, loop shapes), keyed by (what, id(node))
        self.memo: dict[tuple[str, int], tuple[Any, Any]] = {}
        self._cache: dict[tuple, dict[int, Extent]] = {}
        self._streams: dict[tuple, bool] = {}
        self._starts: dict[tuple, frozenset] = {}
        #: per vector function, the names that surely hold a data register (`_data_names`)
        self._data: dict[str, frozenset[str]] = {}
        #: per vector function, the bindings of its names (`_bindings`)
        self._bound: dict[str, _Bindings] = {}

    def extents(self, name: str, args: tuple, kwargs: tuple = ()) -> dict[int, Extent]:
        """Per tile argument (by position among `args`), the bytes the call reaches. `args`
        holds `TileArg` for tiles and plain values (numbers, strings, None) for scalars;
        `kwargs` is a tuple of (name, value) pairs. Raises `Unmodelled`."""
        key = _call_key(name, args, kwargs)
        hit = self._cache.get(key)
        if hit is None:
            run = _Run(self)
            hit = self._cache[key] = run.top(name, args, dict(kwargs))
            self._starts[key] = frozenset(run.starts)
        return hit

    def cursor_starts(self, name: str, args: tuple, kwargs: tuple = ()) -> frozenset:
        """The pointers the call's `post_update` accesses start cursors at, `(argument, byte
        offset)` (after `extents` of the same call): two of them at one address share a cursor
        on the hardware, which a call with placed arguments (`TileArg.base`) follows."""
        self.extents(name, args, kwargs)
        return self._starts[_call_key(name, args, kwargs)]

    def bindings(self, name: str) -> _Bindings:
        """The bindings of the names of vector function `name` (read with its tree)."""
        return self._bound.get(name, _Bindings(frozenset(), {}))

    def data_names(self, name: str) -> frozenset[str]:
        """The names of vector function `name` that surely hold a data register (`_data_names`,
        read with its tree)."""
        return self._data.get(name, frozenset())

    def constant(self, name: str) -> Any:
        if name not in self._constants:
            value = self._constant_of(name)
            if isinstance(value, (tuple, list)) and all(_number(v) for v in value):
                value = tuple(value)  # a module tuple or list of numbers, read by `OFFSETS[i]`
            self._constants[name] = value if isinstance(value, (int, float, str, tuple)) else _UNKNOWN
        return self._constants[name]

    def streams(self, name: str, seen: frozenset = frozenset()) -> bool:
        """Does vector function `name` (or one it calls) move a `post_update` cursor? Only then
        do its tile arguments' addresses matter to it (`TileArg.base`)."""
        key = ("streams", name)
        if key not in self._streams:
            fn = self.tree(name)
            found = False
            for node in ([] if fn is None or name in seen else _subnodes(fn)):
                if isinstance(node, ast.keyword) and node.arg == "post_update" or isinstance(node, ast.Call) \
                        and (_moves_cursor(node) or isinstance(node.func, ast.Name)
                             and self.tree(node.func.id) is not None and self.streams(node.func.id, seen | {name})):
                    found = True
                    break
            self._streams[key] = found
        return self._streams[key]

    def tree(self, name: str) -> ast.FunctionDef | None:
        if name in self._refused:
            raise self._refused[name]
        if name not in self._trees:
            source = self._source_of(name)
            if source is None:
                return None
            fn = copy.copy(source) if isinstance(source, ast.FunctionDef) else _read(name, source)
            nodes = _subnodes(fn)  # one walk for the readings below, all before pruning
            stored = _stored_among(nodes)
            spelled = _vf_spelled_vf(fn, self.is_vf, self.pl_names, nodes, stored)
            if spelled is not fn:
                fn, nodes = spelled, _subnodes(spelled)
                stored = _stored_among(nodes)
            self._trees[name] = None  # while its subset is checked: a call of itself is no vector function yet
            try:
                _Subset(self, name).function(fn, stored)
            except Unmodelled as exc:
                del self._trees[name]
                self._refused[name] = exc
                raise
            self._bound[name] = _bindings(fn, nodes)
            self._data[name] = _data_names(self._bound[name])
            fn.body = _prune(fn.body, self.memo)  # on a copy: the caller's tree stays whole
            self._trees[name] = fn
        return self._trees[name]


def _call_key(name: str, args: tuple, kwargs: tuple) -> tuple:
    """A call's key among the remembered ones: its arguments and their types (`5` and `5.0` are
    equal, but `vf.full` makes registers of other widths of them)."""
    return name, args, kwargs, tuple(type(a) for a in args), tuple(type(v) for _, v in kwargs)


def _remembered(ask: Callable[[str], bool]) -> Callable[[str], bool]:
    """`ask`, asked once per name: a question about the file (is a name bound, is it `pl.Vf`),
    whose answer stays while one transpile reads it, and which the subset check asks per call."""
    answers: dict[str, bool] = {}

    def remembered(name: str) -> bool:
        if name not in answers:
            answers[name] = ask(name)
        return answers[name]
    return remembered


#: Statements a vector function may hold (`_Subset`); anything else is refused before it runs.
_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.For, ast.If, ast.Pass, ast.Return)
#: Expressions the evaluator computes; a call may only stand where its effects surely happen.
_EXPRESSIONS = (ast.Constant, ast.Name, ast.Attribute, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Tuple,
                ast.List, ast.Subscript, ast.Call, ast.keyword, ast.operator, ast.unaryop, ast.cmpop, ast.boolop,
                ast.expr_context)


class _Subset:
    """The Python a vector function may be written in, checked on its whole body before it is
    evaluated: what the evaluator computes, and every call where it surely runs (a statement's
    own value or an argument of such a call: not in a test, a loop's bounds, a short-circuited
    operand or a comparison), each of a `vf` op, a vector function of the file, or a builtin
    the file does not rebind. What falls outside is refused naming it, instead of being
    evaluated as something else (a store in an `if` test pruned, a `:=` bound where Python
    would not run it, a pointer handed to a plain helper)."""

    def __init__(self, owner: VectorFunctions, name: str):
        self.owner, self.name = owner, name
        #: the names the function binds itself (parameters, assignments, loop variables): a call
        #: of one is of whatever it holds, not of the builtin or function of that name
        self.bound: set[str] = set()

    def refuse(self, what: str, node: ast.AST) -> None:
        line = getattr(node, "lineno", "?")
        raise Unmodelled(f"{what} in vector function `{self.name}` is not modelled (line {line})")

    def function(self, fn: ast.FunctionDef, stored: set[str] | None = None) -> None:
        """`stored`: `_stored(fn)`, when the caller has it."""
        params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
        bound = (_stored(fn) if stored is None else stored) | params
        self.bound = bound
        if bound & {"vf", "pl", "Vf"}:
            self.refuse(f"a name `{sorted(bound & {'vf', 'pl', 'Vf'})[0]}` of the function that hides the module", fn)
        for default in [*fn.args.defaults, *(d for d in fn.args.kw_defaults if d is not None)]:
            self.expr(default, effects=False)
        for i, stmt in enumerate(fn.body):
            if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # the docstring
            self.stmt(stmt)

    def stmt(self, stmt: ast.stmt) -> None:
        if not isinstance(stmt, _STATEMENTS):
            self.refuse(f"a `{type(stmt).__name__}` statement", stmt)
        if isinstance(stmt, ast.For):
            it = stmt.iter
            over_range = isinstance(it, ast.Call) and _callee(it.func) in ("range", "pl.range")
            listed = isinstance(it, ast.Name) or isinstance(it, (ast.Tuple, ast.List)) and not any(
                isinstance(e, ast.Starred) for e in it.elts)
            if stmt.orelse or not isinstance(stmt.target, ast.Name) or not (over_range or listed):
                self.refuse("a loop other than `for name in pl.range(...)` or over a tuple of values", stmt)
            if isinstance(it, ast.Call) and over_range and _callee(it.func) in self.bound:
                self.refuse(f"a loop over `{_callee(it.func)}(...)`, a name the function binds itself", stmt)
            self.expr(stmt.iter, effects=False)
        elif isinstance(stmt, ast.If):
            self.expr(stmt.test, effects=False)
        for target in getattr(stmt, "targets", [getattr(stmt, "target", None)]):
            if target is not None and not isinstance(stmt, ast.For) and not all(
                    isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.expr_context)) for n in _subnodes(target)):
                self.refuse("an assignment to anything but names", stmt)
        value = getattr(stmt, "value", None)
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)) and value is not None:
            self.expr(value, effects=True)
        for child in [*getattr(stmt, "body", []), *getattr(stmt, "orelse", [])]:
            self.stmt(child)

    def expr(self, node: ast.AST, effects: bool) -> None:
        if not isinstance(node, _EXPRESSIONS):
            self.refuse(f"a `{type(node).__name__}` expression", node)
        if isinstance(node, ast.Call):
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                self.refuse("a starred argument", node)
            pure = self.pure(node.func)
            if not pure:
                self.callee(node.func)
                if not effects:
                    self.refuse("a call with effects in a test, a loop's bounds or an operand", node)
            for a in [*node.args, *(k.value for k in node.keywords)]:
                self.expr(a, effects=effects and not pure)
            return
        if isinstance(node, ast.Attribute):
            if not _callee(node):
                self.refuse("an attribute of a value", node)
            return
        fields = _CHILD_FIELDS.get(type(node))
        if fields is None:
            fields = child_fields(type(node), source_order=False)
        for f in fields:  # `ast.iter_child_nodes` but `ctx`
            v = getattr(node, f, None)
            if isinstance(v, ast.AST):
                self.expr(v, effects=False)
            elif isinstance(v, list):
                for x in v:
                    if isinstance(x, ast.AST):
                        self.expr(x, effects=False)

    def pure(self, func: ast.expr) -> bool:
        """A builtin the evaluator computes (`min`, `range`, ...), not rebound by the file."""
        path = _callee(func)
        return path in (*_BUILTINS, "range", "pl.range") and (path == "pl.range" or not self.owner.binds(path)) \
            and path not in self.bound

    def callee(self, func: ast.expr) -> None:
        path = _callee(func)
        parts = path.split(".")
        if len(parts) in (2, 3) and parts[:-1] in (["vf"], ["pl", "Vf"]):
            if not self.owner.is_vf(parts[0]) if parts[0] != "pl" else parts[0] not in self.owner.pl_names:
                self.refuse(f"`{path}`, whose `{parts[0]}` is not the `pl` module's `Vf`", func)
            if parts[-1] not in _VF_OPS:
                self.refuse(f"`{path}`, which is no `vf` op", func)
            return
        if len(parts) == 1 and path in self.bound:
            self.refuse(f"a call of `{path}`, a name the function binds itself (a parameter, a default or an "
                        "assignment), which may hold anything", func)
        if len(parts) == 1 and path in (*_BUILTINS, "range"):
            self.refuse(f"a function of the file named `{path}`, like the builtin", func)
        if len(parts) == 1 and path and self.owner.tree(path) is not None:
            return
        self.refuse(f"a call of `{path or type(func).__name__}`, which is neither a `vf` op nor a vector function "
                    "of the file", func)


def _vf_spelled_vf(fn: ast.FunctionDef, is_vf: Callable[[str], bool], pl_names: frozenset,
                   nodes: list[ast.AST] | None = None, stored: set[str] | None = None) -> ast.FunctionDef:
    """`fn` with each op call through another spelling of `pl.Vf` (`Vf.op` where the file
    imports `Vf`, `pl.Vf.op`) written `vf.op`, the one the evaluator reads; a copy when there
    is one. Only where `vf` is `pl.Vf` or unbound, and the head is not a name of `fn` itself.
    `nodes`: `_subnodes(fn)`, and `stored`: `_stored(fn)`, when the caller has them."""
    if not is_vf("vf"):
        return fn
    if nodes is None:
        nodes = _subnodes(fn)
    params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    local = (_stored_among(nodes) if stored is None else stored) | params

    def other_spelling(head: ast.expr) -> bool:
        if isinstance(head, ast.Name):
            return head.id != "vf" and head.id not in local and is_vf(head.id)
        return isinstance(head, ast.Attribute) and head.attr == "Vf" and isinstance(head.value, ast.Name) \
            and head.value.id in pl_names and head.value.id not in local

    def calls(among: list[ast.AST]) -> list[ast.Attribute]:
        return [n.func for n in among if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and other_spelling(n.func.value)]

    if not calls(nodes):
        return fn
    fn = copy.deepcopy(fn)
    for func in calls(_subnodes(fn)):
        func.value = ast.copy_location(ast.Name("vf", ast.Load()), func.value)
    return fn


#: `vf` ops whose result is a data register whatever they are given (a mask only picks lanes)
_DATA_RESULT_OPS = frozenset({
    "load_align", "full", "arange", "add", "adds", "sub", "subs", "mul", "muls", "div", "max", "maxs", "min", "mins",
    "exp", "exp_sub", "ln", "log", "log10", "log2", "sqrt", "abs", "abs_sub", "neg", "relu", "leaky_relu", "prelu",
    "axpy", "mul_add_dst", "mul_dst_add", "muls_cast", "astype", "truncate", "reduce_max", "reduce_min",
    "reduce_sum", "pair_reduce_sum", "shift_left", "shift_right",
})
#: `vf` ops that return masks when given masks: a data register when their first k operands are
_PASSING_OPS = {"move": 1, "pack": 1, "unpack": 1, "not_": 1, "select": 2, "and_": 2, "or_": 2, "xor": 2,
                "interleave": 2, "de_interleave": 2}
#: the lane width of each store `dist`
_STORE_DIST_BYTES = {"NORM_B8": 1, "NORM_B16": 2, "NORM_B32": 4}


def _data_expr(expr: ast.expr, data: frozenset[str]) -> bool:
    """Does `expr` surely give a data register (not a mask), the names in `data` holding one?"""
    if isinstance(expr, ast.Name):
        return expr.id in data
    if not isinstance(expr, ast.Call):
        return False
    path = _callee(expr.func)
    if not path.startswith("vf."):
        return False
    op = path[3:]
    if op in _DATA_RESULT_OPS:
        return True
    k = _PASSING_OPS.get(op)
    operands = _bound_call(expr, op) or {}
    return k is not None and all(operands.get(p) is not None and _data_expr(operands[p], data)
                                 for p in VF_PARAMETERS[op][:k])


def _moves_cursor(call: ast.Call) -> bool:
    """Is `call` a register op given `post_update` by position (`vf.load_align(t, k, dist, None,
    True)`; by keyword, the `ast.keyword` says so), or one whose arguments do not bind, which may
    (probe h125: given by position, the cursor two arguments at one address share was missed)?"""
    path = _callee(call.func)
    if not path.startswith(("vf.", "pl.Vf.")):
        return False
    op = path.rsplit(".", 1)[-1]
    if op not in VF_PARAMETERS or "post_update" not in VF_PARAMETERS[op]:
        return False
    bound = _bound_call(call, op)
    return bound is None or "post_update" in bound


def _bound_call(call: ast.Call, op: str) -> dict[str, Any] | None:
    """The argument nodes of the call `vf.<op>(...)` by PyPTO's parameter names
    (`pto_api.names.vf_bind`); None where they do not bind, or the op is not PyPTO's."""
    if op not in VF_PARAMETERS or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    return vf_bind(op, call.args, {k.arg: k.value for k in call.keywords})


#: the nodes that bind names (what `_data_names` looks at)
_BINDERS = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.NamedExpr, ast.comprehension})


@dataclass(frozen=True)
class _Bindings:
    """Every binding of each name of a vector function, as a set (`_bindings`)."""

    params: frozenset[str]
    #: name -> the values bound to it: a plain assignment's value, a pair's call (`a, b =
    #: vf.de_interleave(x, y)`), None for any other binding (a loop variable, `+=`, ...)
    values: dict[str, list[ast.expr | None]]


def _bindings(fn: ast.FunctionDef, nodes: list[ast.AST] | None = None) -> _Bindings:
    """The bindings of `fn`'s names. `nodes`: `_subnodes(fn)`, when the caller has it."""
    params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    params |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}
    bindings: dict[str, list[ast.expr | None]] = {}
    # every node (as `ast.walk`, in another order: the bindings are sets in effect)
    for node in _subnodes(fn) if nodes is None else nodes:
        if type(node) not in _BINDERS:
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bindings.setdefault(target.id, []).append(node.value)
                    continue
                pair = isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, ast.Call) \
                    and _callee(node.value.func) in ("vf.de_interleave", "vf.interleave")
                for n in (e for e in _subnodes(target) if isinstance(e, ast.Name)):
                    bindings.setdefault(n.id, []).append(node.value if pair else None)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            bindings.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr, ast.comprehension)):
            for n in (e for e in _subnodes(node.target) if isinstance(e, ast.Name)):
                bindings.setdefault(n.id, []).append(None)
    return _Bindings(frozenset(params), bindings)


def _data_names(bound: _Bindings) -> frozenset[str]:
    """The names that surely hold a data register wherever they are read: no parameter, and
    every binding a plain assignment of a data register (`_data_expr`), or a pair of them
    (`a, b = vf.de_interleave(x, y)`). The largest such set: a binding may read the name itself
    (`m = vf.max(m, r, p)`), which is data by induction over the bindings run. What a mask may
    reach (`vf.load_align` into a name holding a mask loads a mask) is left out."""
    params, bindings = bound.params, bound.values
    data = {n for n, values in bindings.items() if n not in params and all(v is not None for v in values)}
    changed = True
    while changed:
        frozen = frozenset(data)
        kept = {n for n in data if all(_data_expr(v, frozen) for v in bindings[n] if v is not None)}
        changed, data = kept != data, kept
    return frozenset(data)


def _read(name: str, text: str) -> ast.FunctionDef:
    try:
        module = ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise Unmodelled(f"vector function `{name}` could not be read ({type(exc).__name__})") from None
    fns = [s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == name]
    if not fns:
        raise Unmodelled(f"vector function `{name}` could not be read")
    return fns[0]


class _Run:
    """One top-level call: cursors and touched bytes are shared with the nested calls it makes."""

    def __init__(self, owner: VectorFunctions):
        self.owner = owner
        self.ops = 0
        #: `post_update` cursors by target address (`_cursor`), each where it points now: bytes
        #: from the call's lowest tile argument of that memory (`TileArg.base`)
        self.cursors: dict[tuple, int] = {}
        self.starts: set[tuple[int, int]] = set()  #: (argument, byte offset) of every cursor's pointer
        self.touched: dict[tuple[int, str], list[tuple[int, int]]] = {}
        self.active: list[str] = []
        self.log: list[tuple[int, str, int, int]] | None = None
        #: a store's bytes were taken larger than they may be (a mask or a branch not known,
        #: intervals merged into their hull): the writes are a superset, not exactly the bytes
        self.inexact = False
        #: the register the `vf.store_align` being run stores surely holds data, not a mask
        #: (`_data_names`): a mask register's store writes other bytes
        self.stores_data = True
        #: bytes per lane of the register that `vf.store_align` stores (None: not known)
        self.stored_lane: int | None = None
        #: `_lane_of` per (stored expression, environment)
        self.lanes: dict[tuple[int, int], tuple[dict, int | None]] = {}

    def top(self, name: str, args: tuple, kwargs: dict) -> dict[int, Extent]:
        bound = [_Ptr(i, 0, a) if isinstance(a, TileArg) else a for i, a in enumerate(args)]
        self.call(name, bound, {k: v for k, v in kwargs.items() if not isinstance(v, TileArg)})
        out = {}
        for i, a in enumerate(args):
            if isinstance(a, TileArg):
                writes = _union(self.touched.get((i, "W"), []))
                exact = not self.inexact and len(writes) <= MAX_INTERVALS
                out[i] = Extent(_merge(self.touched.get((i, "R"), [])), _merge(writes), exact)
        return out

    # functions and statements ----------------------------------------------------------------
    def call(self, name: str, args: list, kwargs: dict) -> Any:
        """Run vector function `name` on `args`; its return value (a nested call's value is used)."""
        fn = self.owner.tree(name)
        if fn is None:
            raise Unmodelled(f"`{name}` is not a vector function of this file")
        if name in self.active:
            raise Unmodelled(f"vector function `{name}` calls itself")
        env = self._bind(fn, args, kwargs)
        self.active.append(name)
        try:
            self.block(fn.body, env)
        except _Returned as returned:
            return returned.value
        finally:
            self.active.pop()
        return None

    def _bind(self, fn: ast.FunctionDef, args: list, kwargs: dict) -> dict:
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if len(args) > len(params) or fn.args.vararg or fn.args.kwarg:
            raise Unmodelled(f"the call of `{fn.name}` does not match its parameters")
        env = dict(zip(params, args, strict=False))  # fewer arguments than parameters: defaults
        stale = self.owner.stale_defaults(fn.name)
        given = [k for k in kwargs if k in env]
        if given:
            raise Unmodelled(f"the call of `{fn.name}` gives `{given[0]}` twice")
        for k, v in kwargs.items():
            if k not in params and k not in [a.arg for a in fn.args.kwonlyargs] \
                    or k in [a.arg for a in fn.args.posonlyargs]:  # (Python raises TypeError at the call)
                raise Unmodelled(f"`{fn.name}` has no parameter `{k}` a keyword can name")
            env[k] = v
        defaults = list(zip(params[len(params) - len(fn.args.defaults):], fn.args.defaults, strict=True))
        defaults += [(a.arg, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True) if d is not None]
        for p, d in defaults:
            if p not in env:
                env[p] = _UNKNOWN if stale else self.expr(d, {})
        missing = [p for p in params + [a.arg for a in fn.args.kwonlyargs] if p not in env]
        if missing:
            raise Unmodelled(f"the call of `{fn.name}` leaves `{missing[0]}` unbound")
        return env

    def block(self, stmts: list, env: dict) -> None:
        for stmt in stmts:
            self.stmt(stmt, env)

    def stmt(self, stmt: ast.stmt, env: dict) -> None:
        if isinstance(stmt, ast.Expr):
            self.expr(stmt.value, env)
        elif isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value, env)
            for target in stmt.targets:
                self._assign(target, value, env)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self._assign(stmt.target, self.expr(stmt.value, env), env)
        elif isinstance(stmt, ast.AugAssign):
            current = self.expr(stmt.target, env) if isinstance(stmt.target, ast.Name) else _UNKNOWN
            self._assign(stmt.target, self._binary(type(stmt.op), current, self.expr(stmt.value, env)), env)
        elif isinstance(stmt, ast.For):
            self._for(stmt, env)
        elif isinstance(stmt, ast.If):
            test = self.expr(stmt.test, env)
            if isinstance(test, _Opaque):
                # not static: both ways (the union of what either reaches); a `return` in either
                # would end the evaluation of what follows it, which the other way runs
                self.inexact = True
                try:
                    self._both_ways(stmt, env)
                except _Returned:
                    raise Unmodelled(f"a `return` under a test the check cannot decide (line {stmt.lineno}, in "
                                     f"`{self.active[-1]}`)") from None
            else:
                self.block(stmt.body if test else stmt.orelse, env)
        elif isinstance(stmt, ast.Return):
            raise _Returned(None if stmt.value is None else self.expr(stmt.value, env))
        elif not isinstance(stmt, ast.Pass):
            raise Unmodelled(f"`{type(stmt).__name__}` statements in a vector function are not modelled "
                             f"(line {stmt.lineno}, in `{self.active[-1]}`)")

    def _both_ways(self, stmt: ast.If, env: dict) -> None:
        """Both ways of a test not known here, each from the names as they were: afterwards a
        name holds what both ways leave it, else it is unknown (either may have run). What
        either touches counts; a cursor moved differently by the two is refused."""
        start = dict(self.cursors)
        taken = dict(env)
        self.block(stmt.body, taken)
        after_body, self.cursors = self.cursors, dict(start)
        other = dict(env)
        self.block(stmt.orelse, other)
        if self.cursors != after_body:
            raise Unmodelled(f"the two ways of a test the check cannot decide move a post_update cursor differently "
                             f"(line {stmt.lineno}, in `{self.active[-1]}`)")
        for name in set(taken) | set(other):
            a, b = taken.get(name, _UNKNOWN), other.get(name, _UNKNOWN)
            env[name] = a if a is b or _number(a) and type(a) is type(b) and a == b else _UNKNOWN

    def _assign(self, target: ast.expr, value: Any, env: dict) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value if isinstance(value, tuple) and len(value) == len(target.elts) else None
            for i, t in enumerate(target.elts):
                self._assign(t, values[i] if values is not None else _UNKNOWN, env)
        else:
            raise Unmodelled(f"assignment to `{type(target).__name__}` in a vector function is not modelled")

    def _for(self, stmt: ast.For, env: dict) -> None:
        it = stmt.iter
        if isinstance(it, (ast.Tuple, ast.List, ast.Name)):  # `for o in (0, 448):` each value, in order
            values = self.expr(it, env)
            if type(values) is not tuple or not all(_number(v) for v in values):
                raise Unmodelled(f"the values of the loop at line {stmt.lineno} (in `{self.active[-1]}`) are not "
                                 "static")
            for value in values:
                self._assign(stmt.target, value, env)
                self.block(stmt.body, env)
            return
        if not (isinstance(it, ast.Call) and not it.keywords and _callee(it.func) in ("range", "pl.range")):
            raise Unmodelled(f"the loop at line {stmt.lineno} (in `{self.active[-1]}`) is not over `pl.range`/`range`")
        bounds = [self.expr(a, env) for a in it.args]
        if _callee(it.func) == "pl.range":  # `pl.range` takes `int()` of each bound (`HALF * BLOCK / LANES`)
            bounds = [int(b) if type(b) is float and math.isfinite(b) else b for b in bounds]
        widest = _widest(bounds)
        if widest is None:
            raise Unmodelled(f"the trip count of the loop at line {stmt.lineno} (in `{self.active[-1]}`) is not static")
        if stmt.orelse:
            raise Unmodelled("`for ... else` in a vector function is not modelled")
        if any(isinstance(b, Bounded) for b in bounds):
            # a trip count known within bounds: every iteration it may run, and what they store
            # is a superset; address registers moved by it would be anywhere afterwards
            self.inexact = True
            before = dict(self.cursors)
            try:
                self._for_values(stmt, env, range(*widest))
            except _Returned:
                raise Unmodelled(f"a `return` in the loop at line {stmt.lineno} (in `{self.active[-1]}`), whose "
                                 "count is known only within bounds: what follows it runs at some counts") from None
            for name in _stored(stmt):  # it may have run fewer times: what it assigns is unknown after it
                env[name] = _UNKNOWN
            if self.cursors != before:
                raise Unmodelled(f"the loop at line {stmt.lineno} (in `{self.active[-1]}`) moves an address "
                                 "register a number of times known only within bounds")
            return
        self._for_values(stmt, env, range(*bounds))

    def _for_values(self, stmt: ast.For, env: dict, values: range) -> None:
        count = range_length(values)
        if count > OP_BUDGET:  # (each iteration runs an op at least, or does nothing the call is judged by)
            raise Unmodelled(f"the loop at line {stmt.lineno} (in `{self.active[-1]}`) runs {count:,} iterations, "
                             "too many to follow")
        if count > 3 and _affine_loop(stmt, self.owner.memo):
            self._for_affine(stmt, env, values)
            return
        for value in values:
            self._assign(stmt.target, value, env)
            self.block(stmt.body, env)

    def _for_affine(self, stmt: ast.For, env: dict, values: range) -> None:
        """A loop whose accesses move by a fixed number of bytes per iteration (`_affine_loop`):
        the first two iterations and the last run, the ones between are those two shifted.
        The last one, run for real, must match its prediction, or the evaluator refuses."""
        outer, n = self.log, range_length(values)
        before = dict(self.cursors)
        logs, cursors, ops = [], [], self.ops
        for value in values[:2]:
            self.log = []
            self._assign(stmt.target, value, env)
            self.block(stmt.body, env)
            logs.append(self.log)
            cursors.append(dict(self.cursors))
        first, second = logs
        if len(first) != len(second) or any(a[:2] != b[:2] for a, b in zip(first, second, strict=False)):
            raise Unmodelled("a loop in a vector function whose accesses change shape between iterations")
        steps = [b[2] - a[2] for a, b in zip(first, second, strict=True)]
        moved = {k: cursors[1][k] - cursors[0][k] for k in cursors[1]}
        self.log = outer
        for a, b in zip(first, second, strict=True):
            self._touch_at(*a)
            self._touch_at(*b)
        self.ops += (self.ops - ops) // 2 * (n - 3)
        if self.ops > OP_BUDGET:  # (before the touches of the iterations not run, one by one)
            raise Unmodelled("the vector function runs too many register ops to follow")
        self._touch_shifted(first, steps, range(2, n - 1))
        self.cursors = {key: c + (n - 3) * moved[key] for key, c in cursors[1].items()}
        self.log = []
        self._assign(stmt.target, values[-1], env)
        self.block(stmt.body, env)
        last, self.log = self.log, outer
        predicted = [(arg, kind, lo + (n - 1) * step, hi + (n - 1) * step)
                     for (arg, kind, lo, hi), step in zip(first, steps, strict=True)]
        expected = {key: before.get(key, key[-1]) + n * moved[key] for key in moved}
        if last != predicted or any(self.cursors[key] != expected[key] for key in moved):
            raise Unmodelled("a loop in a vector function whose accesses do not move by a fixed step")
        for entry in last:
            self._touch_at(*entry)

    # expressions -----------------------------------------------------------------------------
    def expr(self, node: ast.expr, env: dict) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            return self.owner.constant(node.id)
        if isinstance(node, ast.Attribute):
            path = _callee(node)
            if not path or path.split(".", 1)[0] in env or path.split(".", 1)[0] not in self.owner.pl_names:
                return _UNKNOWN  # `Pat.VL16` of a class of the file is not `pl.MaskPattern.VL16`
            return path.rsplit(".", 1)[-1]  # `pl.MaskPattern.ALL` -> "ALL", `pl.DT_FP16` -> "DT_FP16"
        if isinstance(node, ast.BinOp):
            return self._binary(type(node.op), self.expr(node.left, env), self.expr(node.right, env))
        if isinstance(node, ast.UnaryOp):
            v = self.expr(node.operand, env)
            if isinstance(node.op, ast.USub) and _number(v):
                return -v
            if isinstance(node.op, ast.Not) and not isinstance(v, _Opaque):
                return not v
            return _UNKNOWN
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            a, b = self.expr(node.left, env), self.expr(node.comparators[0], env)
            return _COMPARE[type(node.ops[0])](a, b) if _number(a) and _number(b) else _UNKNOWN
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in (ast.Is, ast.IsNot):
            # `LANES is not None` of a number: only the literal `None` is None here (`constant` names a
            # module constant bound to None as unknown)
            a, b = self.expr(node.left, env), self.expr(node.comparators[0], env)
            if (a is None or _number(a)) and (b is None or _number(b)) and (a is None or b is None):
                return (a is b) == isinstance(node.ops[0], ast.Is)
            return _UNKNOWN
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self.expr(e, env) for e in node.elts)
        if isinstance(node, ast.Subscript):  # `OFFSETS[i]` of a tuple of numbers
            seq, i = self.expr(node.value, env), self.expr(node.slice, env)
            if type(seq) is tuple and _integer(i) and -len(seq) <= i < len(seq) and _number(seq[i]):
                return seq[i]
            return _UNKNOWN
        if isinstance(node, ast.Call):
            return self._call(node, env)
        if isinstance(node, ast.BoolOp):
            values = [self.expr(v, env) for v in node.values]  # `HALF == 0 or BLOCK == 0`
            if all(isinstance(v, (bool, int, float)) for v in values):
                chosen = values[-1]
                for v in values[:-1]:
                    if bool(v) != isinstance(node.op, ast.And):
                        chosen = v
                        break
                return chosen
            return _UNKNOWN
        return _UNKNOWN  # a chained comparison, ...: `_Subset` let no call into it

    def _binary(self, op: type, a: Any, b: Any) -> Any:
        if isinstance(a, _Ptr) or isinstance(b, _Ptr):
            ptr, k = (a, b) if isinstance(a, _Ptr) else (b, a)
            if op is ast.Add or (op is ast.Sub and ptr is a):
                if not _integer(k):
                    raise Unmodelled("a tile pointer moves by an offset that is not static")
                return _Ptr(ptr.arg, ptr.offset + (k if op is ast.Add else -k) * ptr.tile.elem, ptr.tile)
            raise Unmodelled("arithmetic on a tile pointer other than `+`/`-` an offset")
        if _number(a) and _number(b) and op in _BINARY:
            if op in (ast.Pow, ast.LShift) and abs(b) > 64:  # (`1 << (1 << 40)`: memory, probe h187)
                raise Unmodelled("a power or shift too large to follow in a vector function")
            try:
                return _BINARY[op](a, b)
            except (ArithmeticError, ValueError, TypeError):  # (`256.0 & -32`, in a branch that may not run)
                return _UNKNOWN
        return _UNKNOWN

    def _call(self, node: ast.Call, env: dict) -> Any:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise Unmodelled("a starred argument in a vector function is not modelled")
        args = [self.expr(a, env) for a in node.args]
        kwargs = {k.arg: self.expr(k.value, env) for k in node.keywords}
        path = _callee(node.func)
        if path and path.startswith(("vf.", "pl.Vf.")):
            if path.endswith(".store_align"):
                stored = node.args[1] if len(node.args) > 1 else next(
                    (k.value for k in node.keywords if k.arg == "src"), None)
                self.stores_data = stored is not None and _data_expr(stored, self.owner.data_names(self.active[-1]))
                self.stored_lane = None if stored is None else self._lane_of(stored, env)
            return self._vf_op(path.rsplit(".", 1)[-1], args, kwargs)
        if isinstance(node.func, ast.Name):
            name = node.func.id
            if name not in env and self.owner.tree(name) is not None:
                return self.call(name, args, kwargs)
            if name in _BUILTINS and all(_number(a) for a in args) and not kwargs and name not in env:
                try:
                    return _BUILTINS[name](*args)
                except (ArithmeticError, TypeError, ValueError):  # (`int(1e308 * 10.0)`: probe h187)
                    return _UNKNOWN
        if any(isinstance(a, _Ptr) for a in (*args, *kwargs.values())):
            raise Unmodelled(f"a tile pointer is passed to `{path or 'a call'}`, which the check cannot follow")
        return _UNKNOWN

    # register lanes ----------------------------------------------------------------------------
    def _lane_of(self, expr: ast.expr, env: dict) -> int | None:
        """Bytes per lane of the register `expr` gives (None: not known), from the bindings of
        the names it reads, all of them: pruning leaves register arithmetic unrun, so the
        value a name holds when stored is one of them (`_register_lane`)."""
        key = (id(expr), id(env))
        hit = self.lanes.get(key)
        if hit is None or hit[0] is not env:
            lane = _register_lane(expr, self.owner.bindings(self.active[-1]), self._fixed(env), set())
            hit = self.lanes[key] = (env, lane if isinstance(lane, int) else None)
        return hit[1]

    def _fixed(self, env: dict) -> Callable[[ast.expr], Any]:
        """The value of an expression that reads no name the function binds (its parameters,
        module constants, `pl.DT_...`: the same wherever it is read), else unknown."""
        bound = self.owner.bindings(self.active[-1]).values

        def value(node: ast.expr) -> Any:
            if _name_ids(node) & bound.keys():
                return _UNKNOWN
            try:
                return self.expr(node, env) if not isinstance(node, ast.Call) else _UNKNOWN
            except Unmodelled:
                return _UNKNOWN
        return value

    # vf ops ------------------------------------------------------------------------------------
    def _vf_op(self, op: str, args: list, kwargs: dict) -> Any:
        self.ops += 1
        if self.ops > OP_BUDGET:
            raise Unmodelled("the vector function runs too many register ops to follow")
        if op == "load_align":
            return self._load(*_arguments(op, args, kwargs, ("tile", "offset", "dist", "dtype", "post_update")))
        if op == "store_align":
            return self._store_align(args, kwargs)
        if op in VF_OP_ROLES:
            raise Unmodelled(f"the bytes `vf.{op}` reaches are not modelled")
        if op in VF_MACHINE_STATE_OPS or op == "squeeze" and (args[2:3] or [kwargs.get("gather_mode")])[0] not in (
                None, "NO_STORE_REG"):
            raise Unmodelled(f"`vf.{op}` reads or sets a core's special registers or mask state, which the check "
                             "does not follow across stages run ahead of one another")
        if op == "create_mask":
            pattern, dtype = _arguments(op, args, kwargs, ("pattern", "dtype"))
            return _mask_of("ALL" if pattern is None else pattern, dtype)
        if op == "update_mask":
            return _count_mask(*_arguments(op, args, kwargs, ("scalar", "dtype")))
        if any(isinstance(a, _Ptr) for a in (*args, *kwargs.values())):
            raise Unmodelled(f"`vf.{op}` is given a tile pointer; only loads and stores are modelled")
        if op == "de_interleave":
            return (_REG, _REG)
        return _REG

    def _load(self, ptr, offset, dist, dtype, post_update) -> Any:
        ptr = _pointer("load_align", ptr)
        post_update = _truth(post_update)
        step = _elements(ptr, offset)
        start = self._at(ptr, step, post_update)
        d = dist if isinstance(dist, str) else "NORM"
        if dist is not None and not isinstance(dist, str):
            raise Unmodelled("the `dist` of this `vf.load_align` is not static")
        if d == "NORM":
            width = REG_BYTES
        elif d == "BRC":
            width = _dtype_bytes(dtype) or ptr.tile.elem
        elif d in BROADCAST_BYTES:
            width = BROADCAST_BYTES[d]
        else:
            raise Unmodelled(f"`vf.load_align` with dist={d} is not modelled")
        self._touch(ptr, start, start + width, "R")
        return _REG

    def _store_align(self, args: list, kwargs: dict) -> None:
        """`store_align(tile, src, *args)`: PyPTO's store forms put `preg, offset` after a
        register, `offset` alone after a mask; a third operand that is no mask is the offset
        (the source is a mask)."""
        bound = vf_bind("store_align", args, kwargs) or {}
        third = bound.get("args", [])[:1]
        if third and (third[0] is _UNKNOWN or isinstance(third[0], Bounded)):
            # a mask register stored at an offset the evaluator cannot compute, or a register under
            # a mask it cannot name: which one this store is, is not known
            raise Unmodelled("a `vf.store_align` whose third operand is neither a mask nor an offset the check "
                             "can compute")
        if third and not isinstance(third[0], (_Mask, _Opaque)) or isinstance(bound.get("src"), _Mask):
            return self._store_mask(*_arguments("store_align", args, kwargs,
                                                ("tile", "src", "offset", "post_update", "dist"), ("offset",)))
        return self._store(*_arguments("store_align", args, kwargs, (
            "tile", "src", "preg", "offset", "block_stride", "repeat_stride", "data_copy_mode", "post_update", "dist"),
            ("preg", "offset")))

    def _store(self, ptr, reg, mask, offset, block_stride, repeat_stride, mode, post_update, dist) -> None:
        ptr = _pointer("store_align", ptr)
        post_update = _truth(post_update)
        if dist is not None and dist not in ("NORM", "NORM_B8", "NORM_B16", "NORM_B32"):
            raise Unmodelled(f"`vf.store_align` with dist={dist} is not modelled")
        # whole lanes of the register's dtype (an int64 `vf.full(1)` stored in an int32 tile
        # writes 8-byte lanes); of the widest when not known: the same bytes for a mask of whole
        # lanes of that width, else the guard below takes the whole register
        lane = self.stored_lane or _WIDEST_LANE
        enabled = _enabled(mask, lane)
        if mask is not None and not (isinstance(mask, _Mask) and mask.exact):
            self.inexact = True  # which lanes it writes is not known: all of them, a superset
        if isinstance(mask, _Mask) and mask.nbytes % lane or dist in _STORE_DIST_BYTES and \
                _STORE_DIST_BYTES[dist] != lane:
            # a mask or dist of lanes of another width than the register's (an fp16 mask on an
            # fp32 register): the whole register, a superset
            enabled, self.inexact = REG_BYTES, True
        if not self.stores_data:
            # the register may be a mask (a compare's result, a name a mask may reach): its
            # store writes the mask's bits, not the lanes; the larger of the two, a superset
            if mode == "DATA_BLOCK_COPY" or post_update not in (None, False):
                raise Unmodelled("a `vf.store_align` with a block copy or post_update of a register that may be a "
                                 "mask (a compare's result, or a name a mask may reach)")
            enabled, self.inexact = max(enabled, REG_BYTES // 8), True
        if mode == "DATA_BLOCK_COPY":
            if offset is not None:  # the 4th argument of a block copy is its block stride (PyPTO's binding)
                if block_stride is not None:
                    raise Unmodelled("a `vf.store_align` DATA_BLOCK_COPY given its block stride twice (its 4th "
                                     "argument is the block stride in this mode)")
                block_stride = offset
            start = self._cursor_at(ptr) if post_update is True else ptr.offset
            stride = _static(block_stride, 1, "block_stride") * BLOCK_BYTES
            blocks = min(BLOCKS_PER_REG, -(-enabled // BLOCK_BYTES))
            for b in range(blocks):
                self._touch(ptr, start + b * stride, start + b * stride + BLOCK_BYTES, "W")
            if post_update is True:
                self._cursor_to(ptr, start + _static(repeat_stride, 1, "repeat_stride") * BLOCK_BYTES)
            elif post_update is not None and post_update is not False:
                raise Unmodelled("`post_update` of this `vf.store_align` is not static")
            return None
        if mode is not None and mode != "NORM":
            raise Unmodelled(f"`vf.store_align` with data_copy_mode={mode} is not modelled")
        start = self._at(ptr, _elements(ptr, offset), post_update)
        if enabled:
            self._touch(ptr, start, start + enabled, "W")
        return None

    def _store_mask(self, ptr, mask, offset, post_update, dist) -> None:
        """`store_align(t, mask, offset)`: a mask register's bits, one per register byte, at the
        offset (a third operand that is no mask is the offset: the source is a mask)."""
        ptr = _pointer("store_align", ptr)
        post_update = _truth(post_update)
        if post_update not in (None, False) or dist not in (None, "NORM"):
            raise Unmodelled("a `vf.store_align` of a mask register with post_update or a dist is not modelled")
        start = ptr.offset + _elements(ptr, offset)
        self.inexact = True  # the bits of a PACK store are fewer: a superset
        self._touch(ptr, start, start + REG_BYTES // 8, "W")

    def _at(self, ptr: _Ptr, step: int, post_update: Any) -> int:
        if post_update is None or post_update is False:
            return ptr.offset + step
        if post_update is not True:
            raise Unmodelled("`post_update` of this access is not static")
        start = self._cursor_at(ptr)
        self._cursor_to(ptr, start + step)
        return start

    def _cursor_at(self, ptr: _Ptr) -> int:
        """Where the `post_update` cursor of `ptr`'s address points, in bytes from `ptr`'s argument."""
        self.starts.add((ptr.arg, ptr.offset))
        base = ptr.tile.base or 0
        return self.cursors.setdefault(_cursor(ptr), base + ptr.offset) - base

    def _cursor_to(self, ptr: _Ptr, at: int) -> None:
        self.cursors[_cursor(ptr)] = (ptr.tile.base or 0) + at

    def _touch(self, ptr: _Ptr, lo: int, hi: int, kind: str) -> None:
        self._touch_at(ptr.arg, kind, lo, hi)

    def _touch_at(self, arg: int, kind: str, lo: int, hi: int) -> None:
        if self.log is not None:  # a loop being summarised
            self.log.append((arg, kind, lo, hi))
            return
        spans = self.touched.setdefault((arg, kind), [])
        if spans and spans[-1][1] == lo:
            spans[-1] = (spans[-1][0], hi)  # the common case: consecutive registers
        else:
            spans.append((lo, hi))
            if len(spans) > 4 * MAX_INTERVALS:
                self._compact(spans, kind)

    def _touch_shifted(self, first: list, steps: list, ks: range) -> None:
        """`_touch_at` of every entry of `first` moved by `k` times its step, for each `k` in
        turn: the iterations of an affine loop that are not run (thousands of touches; the
        span lists are looked up once)."""
        if self.log is not None:
            self.log.extend((arg, kind, lo + k * step, hi + k * step) for k in ks
                            for (arg, kind, lo, hi), step in zip(first, steps, strict=True))
            return
        rows = [(self.touched.setdefault((arg, kind), []), kind, lo, hi, step)
                for (arg, kind, lo, hi), step in zip(first, steps, strict=True)]
        limit = 4 * MAX_INTERVALS
        for k in ks:
            for spans, kind, lo, hi, step in rows:
                a = lo + k * step
                if spans and spans[-1][1] == a:
                    spans[-1] = (spans[-1][0], hi + k * step)
                else:
                    spans.append((a, hi + k * step))
                    if len(spans) > limit:
                        self._compact(spans, kind)

    def _compact(self, spans: list, kind: str) -> None:
        """Merges `spans` in place into at most MAX_INTERVALS intervals (`_merge`)."""
        out = _union(spans)
        if len(out) > MAX_INTERVALS:
            self.inexact = self.inexact or kind == "W"
            out = [(out[0][0], max(h for _, h in out))]
        spans[:] = out


class _Returned(Exception):
    def __init__(self, value: Any = None) -> None:
        super().__init__()
        self.value = value


# -- loops whose accesses move by a fixed step ------------------------------------------------

_LINEAR_OPS = (ast.Add, ast.Sub)


def _affine_loop(loop: ast.For, memo: dict) -> bool:
    """Whether every access of `loop` is at a fixed offset plus a fixed step per iteration, so
    its iterations are shifts of one another: the body has only memory ops and inner loops over
    bounds that do not depend on the loop variable, no branch, no nested vector-function call,
    no name carried from one iteration to the next, every expression of the loop variable
    linear (`+`, `-`, `*` by something that does not depend on it), and post-update accesses
    that do not depend on it."""
    hit = memo.get(("affine", id(loop)))
    if hit is None or hit[0] is not loop:
        hit = memo[("affine", id(loop))] = (loop, isinstance(loop.target, ast.Name)
                                            and _affine_body(loop.body, loop.target.id, memo))
    return hit[1]


def _affine_body(stmts: list, var: str, memo: dict) -> bool:
    return _affine_walk(stmts, var, memo, set(), _stored_in(stmts), {var}, set())


def _stored_in(stmts: list) -> set[str]:
    return set().union(*(_stored(stmt) for stmt in stmts)) if stmts else set()


def _affine_walk(stmts: list, var: str, memo: dict, definite: set, assigned: set, varying: set,
                 curved: set) -> bool:
    """`_affine_loop`'s test of a body, in order. No name the body assigns (`assigned`, at any
    depth, inner loop variables too) is read before this iteration surely assigned it
    (`definite`: an assignment inside an inner loop may not run): such a name carries a value
    from one iteration to the next, which the shifts would not follow, and which the loop would
    leave with its value after the last iteration the summary runs, not after the real last.
    Every address is linear in the loop variable: names computed from it linearly move with it
    (`varying`), others (`curved`) may not reach an address."""
    for stmt in stmts:
        if isinstance(stmt, ast.For):
            reads = _names(memo, stmt.iter)
            if not isinstance(stmt.target, ast.Name) or stmt.orelse or reads & (varying | curved) \
                    or reads & assigned - definite:
                return False
            if not _affine_walk(stmt.body, var, memo, definite | {stmt.target.id}, assigned, varying, curved):
                return False
            continue
        if isinstance(stmt, ast.Pass):
            continue
        if not isinstance(stmt, (ast.Expr, ast.Assign)):
            return False
        if isinstance(stmt, ast.Assign) and not all(isinstance(t, ast.Name) for t in stmt.targets):
            return False
        if _names(memo, stmt.value) & assigned - definite:
            return False  # a value carried from the iteration before
        for node in _subnodes(stmt.value):
            if isinstance(node, ast.Call):
                path = _callee(node.func)
                op = path.rsplit(".", 1)[-1]
                if not path.startswith(("vf.", "pl.Vf.")) or (op in VF_OP_ROLES and op not in _MODELLED):
                    return False  # a nested vector function or an op not modelled: run it for real
                args = _address_operands(node, op)
                if "post_update" in (_bound_call(node, op) or {k.arg for k in node.keywords}) and any(
                        _names(memo, a) & varying for a in args):
                    return False
                if not all(_linear_in(a, varying, memo) and not _names(memo, a) & curved for a in args):
                    return False
            elif isinstance(node, (ast.IfExp, ast.BoolOp, ast.Compare, ast.Subscript) + _BINDING_EXPRESSIONS):
                return False
        if isinstance(stmt, ast.Assign):
            targets = _targets(stmt, memo)
            definite |= targets
            if _names(memo, stmt.value) & (varying | curved):
                (varying if _linear_in(stmt.value, varying, memo) and not _names(memo, stmt.value) & curved
                 else curved).update(targets)
    return True


def _linear_in(node: ast.expr, varying: set, memo: dict) -> bool:
    """Whether `node` is linear in the names of `varying` (or depends on none of them)."""
    names = _names(memo, node)
    if not names & varying:
        return True
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _linear_in(node.operand, varying, memo)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _LINEAR_OPS):
        return _linear_in(node.left, varying, memo) and _linear_in(node.right, varying, memo)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        left, right = _names(memo, node.left) & varying, _names(memo, node.right) & varying
        return not (left and right) and _linear_in(node.left if left else node.right, varying, memo)
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_linear_in(e, varying, memo) for e in node.elts)
    return False


# -- pruning: only what decides which bytes are touched runs --------------------------------------

_MODELLED = frozenset({"load_align", "store_align"})
_MEMORY_OPS = _MODELLED | frozenset(VF_OP_ROLES)
_BINDING_EXPRESSIONS = (ast.NamedExpr, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_BINDING_TYPES = frozenset(_BINDING_EXPRESSIONS)


def _prune(body: list, memo: dict) -> list:
    """`body` without the statements that cannot change which bytes are touched: register
    arithmetic whose result reaches no address, mask or trip count (most of a vector function).
    A memory op's operands, a nested call's arguments, loop bounds and branch conditions are
    needed, and so is every assignment to a name something needed reads, to a fixpoint."""
    needed: set[str] = set()
    while True:
        before = len(needed)
        _needs(body, needed, memo)
        if len(needed) == before:
            return _kept(body, needed, memo)


def _needs(stmts: list, needed: set, memo: dict) -> bool:
    """Adds what the kept statements of `stmts` read to `needed`; whether any is kept."""
    any_kept = False
    for stmt in stmts:
        if isinstance(stmt, (ast.For, ast.If)):
            inner = _needs(stmt.body, needed, memo) | _needs(stmt.orelse, needed, memo)
            target = stmt.target if isinstance(stmt, ast.For) else None
            if inner or (target is not None and _names(memo, target) & needed):
                needed |= _names(memo, stmt.iter if isinstance(stmt, ast.For) else stmt.test)
                any_kept = True
        elif isinstance(stmt, ast.Pass):
            continue
        elif isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)):
            reads, targets, augmented = _simple(stmt, memo)
            if reads is not None or targets & needed:
                needed |= reads or set()
                if targets & needed:
                    needed |= _names(memo, stmt.value)
                if augmented:
                    needed |= targets & needed
                any_kept = True
        else:
            any_kept = True  # returns and statements the evaluator refuses: kept
    return any_kept


def _kept(stmts: list, needed: set, memo: dict) -> list:
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, (ast.For, ast.If)):
            body, orelse = _kept(stmt.body, needed, memo), _kept(stmt.orelse, needed, memo)
            target = stmt.target if isinstance(stmt, ast.For) else None
            if body or orelse or (target is not None and _names(memo, target) & needed):
                copy = type(stmt)(**{f: getattr(stmt, f) for f in stmt._fields})
                copy.body, copy.orelse = body or [ast.Pass()], orelse
                copy.lineno = stmt.lineno
                out.append(copy)
        elif isinstance(stmt, ast.Pass):
            continue
        elif isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)):
            if _effect_reads(stmt, memo) is not None or _targets(stmt, memo) & needed:
                out.append(stmt)
        else:
            out.append(stmt)
    return out


def _simple(stmt: ast.stmt, memo: dict) -> tuple:
    """What pruning asks of an expression or assignment, remembered per statement (it asks
    until a fixpoint): the names its effects read (None: it has none), the names it assigns,
    whether it is an augmented assignment."""
    hit = memo.get(("simple", id(stmt)))
    if hit is None or hit[0] is not stmt:
        hit = memo[("simple", id(stmt))] = (stmt, (_effect_reads(stmt, memo), frozenset(_targets(stmt, memo)),
                                                   isinstance(stmt, ast.AugAssign)))
    return hit[1]


def _targets(stmt: ast.stmt, memo: dict) -> set | frozenset:
    if isinstance(stmt, ast.Assign):
        return set().union(*(_names(memo, t) for t in stmt.targets))
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return _names(memo, stmt.target)
    return set()


def _effect_reads(stmt: ast.stmt, memo: dict) -> set | frozenset | None:
    """`_reads_of_effects`, remembered per statement (pruning asks until a fixpoint)."""
    hit = memo.get(("effects", id(stmt)))
    if hit is None or hit[0] is not stmt:
        hit = memo[("effects", id(stmt))] = (stmt, _reads_of_effects(stmt, memo))
    return hit[1]


def _reads_of_effects(stmt: ast.stmt, memo: dict) -> set | frozenset | None:
    """The names the memory effects of `stmt` read (None: it has none). A call that is not a
    `vf` register op (a memory op, a nested vector function, anything unknown) is an effect;
    so is an expression that binds names (kept whole)."""
    reads: set | frozenset | None = None
    for node in _subnodes(stmt):
        if type(node) is not ast.Call:
            if type(node) in _BINDING_TYPES:
                return _names(memo, stmt)
            continue
        path = _callee(node.func)
        op = path.rsplit(".", 1)[-1] if path.startswith(("vf.", "pl.Vf.")) else ""
        if op and op not in _MEMORY_OPS:
            continue
        if path in _BUILTINS or path in ("range", "pl.range"):
            continue
        reads = (reads or set()).union(*(_names(memo, a) for a in _address_operands(node, op)))
        reads |= _names(memo, node.func) if isinstance(node.func, ast.Name) else set()
    return reads


def _address_operands(call: ast.Call, op: str) -> list[ast.expr]:
    """The operands of `call` that can decide which bytes it touches: all of them but the
    register a `vf.store_align` stores (its value moves no byte)."""
    args = list(call.args[:1] + call.args[2:]) if op == "store_align" else list(call.args)
    return args + [k.value for k in call.keywords if not (op == "store_align" and k.arg == "src")]


def _names(memo: dict, node: ast.AST | None) -> frozenset:
    """The names read in `node`, remembered per node (a name is its own)."""
    if node is None:
        return frozenset()
    if type(node) is ast.Name:
        return frozenset((node.id,))
    hit = memo.get(("names", id(node)))
    if hit is None or hit[0] is not node:
        hit = memo[("names", id(node))] = (node, _name_ids(node))
    return hit[1]


def _name_ids(node: ast.AST) -> frozenset:
    """The ids of the Name nodes in `node` and under it (`_subnodes`, without keeping the nodes)."""
    ids = []
    stack = [node]
    fields = _CHILD_FIELDS
    while stack:
        n = stack.pop()
        if type(n) is ast.Name:
            ids.append(n.id)
            continue
        names = fields.get(type(n))
        for f in names if names is not None else child_fields(type(n), source_order=False):
            v = getattr(n, f, None)
            if isinstance(v, ast.AST):
                stack.append(v)
            elif type(v) is list:
                stack.extend(x for x in v if isinstance(x, ast.AST))
    return frozenset(ids)


def _subnodes(node: ast.AST) -> list[ast.AST]:
    """`node` and every node under it (the order of `ast.walk` does not matter to the callers),
    through per-type field lists (`_child_fields`); expression contexts (`Load`, `Store`) are
    left out."""
    out = [node]
    stack = [node]
    fields = _CHILD_FIELDS
    while stack:
        n = stack.pop()
        names = fields.get(type(n))
        for f in names if names is not None else child_fields(type(n), source_order=False):
            v = getattr(n, f, None)
            if isinstance(v, ast.AST):
                out.append(v)
                stack.append(v)
            elif type(v) is list:
                for x in v:
                    if isinstance(x, ast.AST):
                        out.append(x)
                        stack.append(x)
    return out


#: the fields of every ast class that may hold nodes, in the class's own order, fixed at import
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {cls: child_fields(cls, source_order=False) for cls in ast_classes()}


def _arguments(op: str, args: list, kwargs: dict, read: tuple[str, ...], rest: tuple[str, ...] = ()) -> list:
    """The values of the parameters `read` of `vf.<op>(*args, **kwargs)` (None where not given),
    bound by PyPTO's parameters (`pto_api.names.VF_PARAMETERS`; the items of its `*args` named
    by `rest`). Refused where Python would not bind the call, or where it gives a parameter the
    evaluator does not read (the bytes would depend on it)."""
    bound = vf_bind(op, args, kwargs)
    if bound is None:
        raise Unmodelled(f"a `vf.{op}` whose arguments do not fit its parameters "
                         f"({', '.join(VF_PARAMETERS[op])}): give each once, by position in that order or by "
                         "its name")
    extra = bound.pop("args", [])
    if len(extra) > len(rest):
        raise Unmodelled(f"a `vf.{op}` with more positional arguments than the check models")
    bound.update(zip(rest, extra, strict=False))
    unread = next((k for k in bound if k not in read), None)
    if unread is not None:
        raise Unmodelled(f"a `vf.{op}` given `{unread}`, which the check does not model")
    return [bound.get(p) for p in read]


def _stored(node: ast.AST) -> set[str]:
    """The names a statement assigns anywhere in it (targets, loop variables, `:=`)."""
    return _stored_among(_subnodes(node))


def _stored_among(nodes: list[ast.AST]) -> set[str]:
    """The names assigned by the Name nodes among `nodes` (`_stored` of what they were walked from)."""
    return {n.id for n in nodes if type(n) is ast.Name and isinstance(n.ctx, ast.Store)}


def _cursor(ptr: _Ptr) -> tuple:
    """The key of a `post_update` cursor: the target's address (the memory and its place from
    the call's lowest tile argument there), as the hardware keeps one per address; for an
    argument not placed, its own pointer (argument and offset). Its last item is where the
    cursor starts (`_Run._cursor_at`)."""
    if ptr.tile.base is None:
        return ("arg", ptr.arg, ptr.offset)
    return ("at", ptr.tile.memory, ptr.tile.base + ptr.offset)


def _pointer(op: str, value: Any) -> _Ptr:
    if not isinstance(value, _Ptr):
        raise Unmodelled(f"the tile `vf.{op}` addresses is not a tile argument (plus a static offset)")
    return value


def _elements(ptr: _Ptr, offset: Any) -> int:
    """Bytes of an element offset (`k` or `[row, col]` of the declared shape)."""
    if offset is None:
        return 0
    if isinstance(offset, tuple) and len(offset) == 2 and all(_integer(o) for o in offset):
        if len(ptr.tile.shape) < 2 or not _integer(ptr.tile.shape[1]):
            raise Unmodelled("a `[row, col]` offset into a tile whose shape is not static")
        return (offset[0] * ptr.tile.shape[1] + offset[1]) * ptr.tile.elem
    if _integer(offset):
        return offset * ptr.tile.elem
    raise Unmodelled("a `vf` load or store offset that is not static")


def _static(value: Any, default: int, what: str) -> int:
    if value is None:
        return default
    if not _integer(value):
        raise Unmodelled(f"the `{what}` of this `vf.store_align` is not static")
    return value


def _dtype_bytes(dtype: Any) -> int | None:
    """Bytes per element of a `pl.DT_*` name (None: not a dtype the API table knows)."""
    return element_bytes(dtype) if isinstance(dtype, str) and dtype in DTYPE_BITS else None


def _truth(flag: Any) -> Any:
    """A flag as the op reads it, by its truth (`post_update=1` moves the cursor, `0` does not);
    a value not known here as it is."""
    return bool(flag) if isinstance(flag, (bool, int, float)) else flag


def _mask_of(pattern: Any, dtype: Any) -> Any:
    """`create_mask(pattern, dtype)`: enabled leading bytes (a pattern not known here: all)."""
    size = _dtype_bytes(dtype) or 4
    if dtype is not None and _dtype_bytes(dtype) is None:
        return _Mask(REG_BYTES, exact=False)  # lanes of a width not known: all of them, a superset
    lanes = REG_BYTES // size
    if pattern == "ALLF":
        return _Mask(0)
    if pattern == "ALL":
        return _Mask(REG_BYTES)
    if isinstance(pattern, str) and pattern not in MASK_PATTERNS:  # (the emulator refuses it too)
        raise Unmodelled(f"mask pattern {pattern!r} is no `pl.MaskPattern` member ({', '.join(MASK_PATTERNS)})")
    if isinstance(pattern, str) and pattern.startswith("VL"):
        return _Mask(min(lanes, int(pattern[2:])) * size)
    fraction = {"H": 2, "Q": 4}.get(pattern) if isinstance(pattern, str) else None
    return _Mask(lanes // fraction * size) if fraction else _Mask(REG_BYTES, exact=False)


def _count_mask(count: Any, dtype: Any) -> Any:
    """`update_mask(n, dtype)`: the first n lanes."""
    size = _dtype_bytes(dtype) or 4
    if _integer(count) and (dtype is None or _dtype_bytes(dtype) is not None):
        return _Mask(max(0, min(REG_BYTES // size, count)) * size)
    return _Mask(REG_BYTES, exact=False)


#: a lane width not decided yet (a binding that reads the name it binds: `m = vf.max(m, r, p)`)
_OPEN = object()


def _register_lane(expr: ast.expr, bound: _Bindings, fixed: Callable[[ast.expr], Any], seen: set) -> Any:
    """Bytes per lane of the register `expr` gives: the `dtype=` it names, the tile's for a load,
    the literal's for `full` of a scalar, the first operand's for lane-wise ops (None: not known,
    `_OPEN`: only through a name being decided). A name's is that of all its bindings, when
    they agree (a parameter's is not known)."""
    if isinstance(expr, ast.Name):
        values = bound.values.get(expr.id)
        if expr.id in seen:
            return _OPEN
        if expr.id in bound.params or not values or any(v is None for v in values):
            return None
        seen.add(expr.id)
        lanes = {_register_lane(v, bound, fixed, seen) for v in values if v is not None} - {_OPEN}
        seen.discard(expr.id)
        return _OPEN if not lanes else lanes.pop() if len(lanes) == 1 else None
    if not (isinstance(expr, ast.Call) and _callee(expr.func).startswith("vf.")):
        return None
    op = _callee(expr.func)[3:]
    named = _bound_call(expr, op)  # a `dtype` may come by position: `vf.full(v, m, pl.DT_INT32)`
    if named is None:
        return None
    dtype = _dtype_bytes(fixed(named["dtype"])) if "dtype" in named else 0
    if op in VF_RESULT_DTYPES:
        return dtype if "dtype" in named else _dtype_bytes(VF_RESULT_DTYPES[op])
    first = named.get(VF_PARAMETERS[op][0]) if VF_PARAMETERS[op] else None
    if first is None:
        return None
    if op == "load_align":
        ptr = fixed(first)
        return dtype if "dtype" in named else ptr.tile.elem if isinstance(ptr, _Ptr) else None
    if op == "full":
        scalar = first.value if isinstance(first, ast.Constant) else fixed(first)
        if type(scalar) in (int, float):  # a scalar broadcast: the `dtype=` named, else the literal's
            return dtype if "dtype" in named else \
                _dtype_bytes(FLOAT_LITERAL_DTYPE if type(scalar) is float else INT_LITERAL_DTYPE)
        # a register's lane broadcast takes the source register's lanes, whatever `dtype=` says (PyPTO
        # infers it from the source; probe h187: `vf.full(w, m, dtype=pl.DT_INT32)` of an int64 `w`
        # wrote 8-byte lanes, past the 12 bytes the check placed); one naming other lanes is not known
        # (a source whose lanes are not known, a register made by an op the check does not read or
        # handed in by a caller, is of lanes not known either: probe h189)
        lane = _register_lane(first, bound, fixed, seen)
        return lane if lane is None or "dtype" not in named or lane in (dtype, _OPEN) else None
    if op in VF_SAME_DTYPE_OPS:
        lane = _register_lane(first, bound, fixed, seen)
        return lane if "dtype" not in named or lane == dtype else None
    return None


def _enabled(mask: Any, lane: int) -> int:
    """Bytes of a register of `lane`-byte lanes a store writes under `mask`: a lane is on when
    the mask bit of its first byte is, so lanes wider than the mask's count whole."""
    if not isinstance(mask, _Mask):
        return REG_BYTES
    return min(REG_BYTES, -(-mask.nbytes // lane) * lane)


def _union(spans: list) -> list[tuple[int, int]]:
    """The spans as disjoint sorted intervals."""
    if not spans:
        return []
    out: list[tuple[int, int]] = []
    ordered = sorted(spans)
    a, b = ordered[0]  # the interval being grown
    for lo, hi in ordered:
        if lo <= b:
            if hi > b:
                b = hi
        else:
            out.append((a, b))
            a, b = lo, hi
    out.append((a, b))
    return out


def _merge(spans: list) -> tuple[tuple[int, int], ...]:
    """The spans' union, or its hull when that has more than MAX_INTERVALS intervals."""
    out = _union(spans)
    if len(out) > MAX_INTERVALS:
        return ((out[0][0], max(h for _, h in out)),)
    return tuple(out)


def _widest(bounds: list) -> list[int] | None:
    """The `range` arguments covering every iteration a loop over `bounds` may run: a
    `Bounded` stop at its greatest value, a `Bounded` start (step 1) at its least; None when
    that is not static."""
    args = [0, *bounds] if len(bounds) == 1 else list(bounds)
    if len(args) == 2:
        args.append(1)
    if len(args) != 3:
        return None
    start, stop, step = args
    if isinstance(stop, Bounded):
        stop = stop.hi
    if isinstance(start, Bounded) and step == 1:
        start = start.lo
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, stop, step)) or \
            (any(isinstance(b, Bounded) for b in bounds) and step <= 0):
        return None
    return [start, stop, step]


def _callee(node: ast.expr) -> str:
    """`a.b.c` as a dotted string ("" for anything else)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


def _integer(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)
