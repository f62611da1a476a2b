"""Tile-group declarations: what `pl.make_tile_group(...)` says, folded statically.

Memory space (read syntactically from `target_memory=<...>.X`), slot size from shape and
dtype, tile count from `mutex_ids` or `depth`, byte range per slot from `addrs`, and the
cross-core event ids with the reason when their spelling is not accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import libcst as cst

from pto_api.effects import slot_addresses
from pto_api.memory import DTYPE_BITS, TILE_SPACES, element_bytes
from pto_transpile.read.consteval import PlSymbol
from pto_transpile.read.meaning import Value
from pto_transpile.read.model import Buffer, IdList
from pto_transpile.read.walk import iter_nodes


def parse_buffer(name: str, call: cst.Call, line, section, evaluator, tile_types, constants, kernel_bound,
                 code, made: Callable[[cst.Call], cst.Call | None] = lambda _call: None) -> Buffer:
    """The facts of `name = pl.make_tile_group(...)`: memory, slot size, tiles, addresses, ids.
    `made`: the `pl.TileType(...)` call a call of a function of the file returns (`factory_type`)."""
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    buf = Buffer(name=name, statement=line, call=call, section=section)
    ttype = kw.get("type")
    factory = None  #: the call of a function of the file that made the type (`type=half_vec()`)
    if isinstance(ttype, cst.Name) and ttype.value in tile_types:
        ttype = tile_types[ttype.value]
    elif isinstance(ttype, cst.Call):
        returned = made(ttype)
        if returned is not None:
            factory, ttype = ttype, returned
    shape = dtype = None
    if isinstance(ttype, cst.Call):
        tkw = {a.keyword.value: a.value for a in ttype.args if a.keyword is not None}
        positional = [a.value for a in ttype.args if a.keyword is None]
        mem = tkw.get("target_memory", positional[2] if len(positional) > 2 else None)
        if isinstance(mem, cst.Attribute) and mem.attr.value in TILE_SPACES:
            buf.memory = mem.attr.value
        elif mem is not None:  # `target_memory=VEC` of `VEC = pl.MemorySpace.Vec` (probe h143)
            space = evaluator.try_eval(mem)
            if isinstance(space, PlSymbol) and space.leaf in TILE_SPACES:
                buf.memory = space.leaf
        # (a factory's nodes are not the file's: the call that made the type is where it is written)
        buf.memory_node = factory if factory is not None else mem if mem is not None else ttype
        shape = evaluator.try_eval(tkw.get("shape", positional[0] if positional else None) or cst.Name("None"))
        dtype = evaluator.try_eval(tkw.get("dtype", positional[1] if len(positional) > 1 else None) or cst.Name("None"))
    else:
        buf.memory_node = ttype if ttype is not None else call
    if isinstance(shape, (list, tuple)) and all(isinstance(d, int) for d in shape) and isinstance(dtype, PlSymbol) \
            and dtype.leaf in DTYPE_BITS:
        size = element_bytes(dtype.leaf)
        for d in shape:
            size *= d
        buf.slot_bytes = size
    if "mutex_ids" in kw:
        buf.mutex_node = kw["mutex_ids"]
        mutex = evaluator.try_eval(kw["mutex_ids"])
        if isinstance(mutex, (list, tuple)):
            buf.mutex_ids = tuple(tuple(m) if isinstance(m, list) else m for m in mutex)
    depth = evaluator.try_eval(kw["depth"]) if "depth" in kw else None
    buf.depth = depth if isinstance(depth, int) and not isinstance(depth, bool) else None
    slots = buf.depth or (len(buf.mutex_ids) if buf.mutex_ids else None)
    addrs = evaluator.try_eval(kw["addrs"]) if "addrs" in kw else None
    if slots and buf.slot_bytes is not None:
        static = (isinstance(addrs, int) and not isinstance(addrs, bool)) or (
            isinstance(addrs, (list, tuple)) and len(addrs) == slots and all(isinstance(a, int) for a in addrs))
        if static and addrs is not None:
            buf.ranges = [(a, a + buf.slot_bytes) for a in slot_addresses(addrs, slots, buf.slot_bytes)]
    for keyword in ("fwd_ids", "bwd_ids"):
        if keyword in kw:
            ids = parse_id_list(keyword, kw[keyword], evaluator, constants, kernel_bound, code)
            if keyword == "fwd_ids":
                buf.fwd = ids
            else:
                buf.bwd = ids
    return buf

def factory_type(call: cst.Call, fn: cst.FunctionDef, is_type: Callable[[cst.Call], bool],
                 made: Callable[[cst.Call], cst.Call | None] = lambda _call: None,
                 fixed: dict[str, cst.BaseExpression | None] | None = None) -> cst.Call | None:
    """The `pl.TileType(...)` call `call` of `fn` returns, its parameters replaced by the
    arguments `call` gives them (or their defaults): for a tile type a function of the file makes
    (`type=half_vec()`, `def half_vec(memory=pl.MemorySpace.Vec): return pl.TileType(...)`, probe
    h139), keyword-only ones too; a function returning what another one makes (`return
    vec_type(HALF)`) returns the type `made` gives that call, its arguments replaced alike (probe
    h143). `fixed`: what a defaulted parameter stands for instead of its default's text, and, keyed
    `.name`, what a free name of the body stands for instead of itself (`_fixed_names`; None where
    no expression can, and the type is not read if it is needed). None unless `fn`'s body is one
    `return` of such a call (after a docstring) and every parameter is plain and given once."""
    fixed = fixed or {}
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    if body and _docstring(body[0]):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
        return None
    ret = body[0].body[0]
    if not isinstance(ret, cst.Return) or not isinstance(ret.value, cst.Call):
        return None
    params = fn.params
    if not isinstance(params.star_arg, (cst.ParamStar, cst.MaybeSentinel)) or params.star_kwarg is not None \
            or params.posonly_params:
        return None
    given: dict[str, cst.BaseExpression] = {}
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > len(params.params):
        return None
    for p, a in zip(params.params, positional, strict=False):
        given[p.name.value] = a.value
    names = {p.name.value for p in (*params.params, *params.kwonly_params)}
    for a in call.args:
        if a.keyword is not None:
            if a.keyword.value in given or a.keyword.value not in names:
                return None
            given[a.keyword.value] = a.value
    for p in (*params.params, *params.kwonly_params):
        if p.name.value not in given:
            if p.default is None:
                return None
            default = fixed.get(p.name.value, p.default)
            if default is None:
                return None
            given[p.name.value] = default
    free = {name[1:]: value for name, value in fixed.items() if name.startswith(".")}
    if any(value is None and name in {n.value for n in iter_nodes(ret.value) if type(n) is cst.Name}
           for name, value in free.items()):
        return None
    given.update((name, value) for name, value in free.items() if value is not None)
    returned = cast(cst.Call, ret.value.visit(_Substitute(given)))
    return returned if is_type(ret.value) else made(returned)


#: how many functions of the file one tile type may be made through (`half_vec()` calling
#: `vec_type(HALF)`, ...): past it the type is not read
MAX_FACTORY_DEPTH = 8


def made_type(file, call: cst.Call, bound: frozenset | set = frozenset(), depth: int = 0) -> cst.Call | None:
    """The tile type a plain function of the file returns for `call` (`factory_type`), if the name
    it calls is a function of the file where the call is made (not one of `bound`, the names the
    function making it binds: a kernel's); where a factory calls another, at module level, up to
    `MAX_FACTORY_DEPTH` of them."""
    if not isinstance(call.func, cst.Name) or depth == 0 and call.func.value in bound or depth > MAX_FACTORY_DEPTH:
        return None
    fn = file.helpers.get(call.func.value)
    if not isinstance(fn, cst.FunctionDef):
        return None
    return factory_type(call, fn, lambda c: file.pl.path(c.func) == ("TileType",),
                        lambda inner: made_type(file, inner, bound, depth + 1), _fixed_names(file, fn, bound))


def _fixed_names(file, fn: cst.FunctionDef, bound: frozenset | set) -> dict[str, cst.BaseExpression | None]:
    """What the names `fn` reads in its own scope stand for where its returned call is read, in
    the caller's scope: a parameter's default as Python computed it when the `def` ran (a name it
    mentions that the module rebinds later, or the caller binds too, does not change it: probe
    h147, `def vec_type(rows, memory=MEM)` then `MEM = pl.MemorySpace.Mat`), and a module name the body reads that the
    caller binds too (Python reads the module's: probe h147, a kernel binding `MEMV` locally),
    each as an expression of its value (None where no expression stands for it)."""
    fixed: dict[str, cst.BaseExpression | None] = {}
    params = fn.params
    stale = fn.name.value in file.names.stale_defaults
    at_def = file.names.defaults.get(fn, {})
    for p in (*params.params, *params.kwonly_params):
        # (a default that mentions a name the caller binds too: Python read the module's, probe h149)
        if p.default is not None and (stale or any(n.value in bound for n in iter_nodes(p.default)
                                                   if type(n) is cst.Name)):
            fixed[p.name.value] = _expressed(at_def.get(p.name.value), file.pl.module_ref)
    own = {p.name.value for p in (*params.params, *params.kwonly_params)}
    for name in {n.value for n in file.find(fn.body, cst.Name)} & set(bound) - own:
        fixed["." + name] = _expressed(file.names.meanings.get(name), file.pl.module_ref)
    return fixed


def _expressed(meaning, pl_ref: str | None) -> cst.BaseExpression | None:
    """An expression of the compile-time value `meaning` holds, or None."""
    try:
        return _literal(meaning.value, pl_ref) if isinstance(meaning, Value) else None
    except _Unexpressed:
        return None


class _Unexpressed(Exception):
    """A value no expression of the caller's scope stands for."""


def _literal(value, pl_ref: str | None) -> cst.BaseExpression:
    if value is None or isinstance(value, bool):
        return cst.Name(repr(value))
    if isinstance(value, int):
        return cst.Integer(str(value)) if value >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-value)))
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return cst.Float(repr(abs(value))) if value >= 0 else cst.UnaryOperation(cst.Minus(), cst.Float(repr(-value)))
    if isinstance(value, str):
        return cst.SimpleString(repr(value))
    if isinstance(value, PlSymbol) and pl_ref is not None:
        head, *rest = pl_ref.split(".")
        node: cst.BaseExpression = cst.Name(head)
        for part in (*rest, *value.path):
            node = cst.Attribute(node, cst.Name(part))
        return node
    if isinstance(value, (list, tuple)):
        elements = [cst.Element(_literal(v, pl_ref)) for v in value]
        return cst.List(elements) if isinstance(value, list) else cst.Tuple(elements)
    raise _Unexpressed


def _docstring(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
        and isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, (cst.SimpleString,
                                                                                   cst.ConcatenatedString))


class _Substitute(cst.CSTTransformer):
    """Names of parameters replaced by the expressions given them (attribute and keyword names
    untouched: only the object of `x.attr` and the value of `k=v` can be a parameter)."""

    def __init__(self, given: dict[str, cst.BaseExpression]):
        self.given = given

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return False

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(value=original.value.visit(self))

    def visit_Arg(self, node: cst.Arg) -> bool:
        return False

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(value=original.value.visit(self))

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.given.get(original.value, updated)


def parse_id_list(keyword: str, node: cst.BaseExpression, evaluator, constants, kernel_bound, code) -> IdList:
    """`fwd_ids=`/`bwd_ids=`: a literal integer list, or a module-level name bound to one (seed)."""
    ids = IdList(keyword, node)
    if isinstance(node, (cst.List, cst.Tuple)):
        values = []
        for el in node.elements:
            v = el.value
            if isinstance(v, cst.Integer):
                values.append(int(v.value.replace("_", ""), 0))
            elif (isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus)
                  and isinstance(v.expression, cst.Integer)):
                values.append(-int(v.expression.value.replace("_", ""), 0))
            elif isinstance(v, cst.Name) and isinstance(evaluator.try_eval(v), int) \
                    and not isinstance(evaluator.try_eval(v), bool):
                values.append(evaluator.try_eval(v))  # a module-level integer constant
            else:
                ids.problem = (f"contains `{code(v)}`, which is neither an integer literal "
                               "nor the name of a module-level integer constant")
                ids.problem_node = v
                return ids
        if not values:
            ids.problem, ids.problem_node = "is empty", node
            return ids
        ids.values = tuple(values)
    elif isinstance(node, cst.Name):
        ids.name = node.value
        if node.value in kernel_bound or node.value not in constants:
            ids.problem = f"is `{node.value}`, which is not bound to a list or tuple of integers outside the kernel"
            ids.problem_node = node
            return ids
        value = evaluator.try_eval(node)
        if not isinstance(value, (list, tuple)):
            ids.problem = f"is `{node.value}`, which is not bound to a list or tuple of integers outside the kernel"
            ids.problem_node = node
        elif not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            ids.problem, ids.problem_node = f"is `{node.value}`, which holds non-integer element(s)", node
        elif not value:
            ids.problem, ids.problem_node = "is empty", node
        else:
            ids.values = tuple(value)
    else:
        ids.problem = f"is `{code(node)}`, which is not a supported spelling"
        ids.problem_node = node
    return ids
