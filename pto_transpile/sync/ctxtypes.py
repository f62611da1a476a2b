"""The scalar type each ctx field carries, and the initialiser that gives the field that type.

PyPTO lowers `pl.struct_array(n, "PipeCtx", field=init, ...)` by typing each field from its
initialiser: a float carried in a field declared `=0` would become an integer. So each
field is initialised with a zero of what it carries: `0` for Python ints (loop variables,
counters, offsets, flags), `0.0` for Python floats, and `pl.const(0, pl.DT_X)` when the
value has a `pl` dtype (a `pl.DT_INT64` parameter, `pl.getval` of an fp16 tile).

The type of a value is read from its expression: literals, kernel parameters' annotations,
module constants, tiling-key fields (ints), the kernel's own assignments (all of them, to a
fixed point), struct fields' initialisers, tiling-data dataclass annotations, element reads
of tiles and tensors, `pl.const`, `pl.getval`, core queries, pure builtins and the helpers of
the file (their `return` over the argument types). When the value says nothing, the uses of
the stage parameter that receives it decide (an index or loop bound is an int; the scalar of
a vector op takes the tile's dtype). Otherwise the type is unknown, and `plan_ctx` reports it.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from pto_api.memory import DTYPE_BITS
from pto_transpile.read.consteval import AUGMENTED, PlSymbol
from pto_transpile.read.kinds import PL_NUMERIC, slot_access
from pto_transpile.read.meaning import Class, Value
from pto_transpile.read.plnames import const_dtype_argument
from pto_transpile.read.unpacking import unpacked
from pto_transpile.read.walk import iter_nodes

INT, FLOAT = "int", "float"
#: The dtypes whose values are floats.
FLOAT_DTYPES = frozenset({"DT_FP16", "DT_BF16", "DT_FP32", "DT_FP64"})
#: `pl` calls whose result is a plain index.
_INDEX_CALLS = frozenset({"get_block_idx", "get_block_num", "get_subblock_idx", "get_subblock_num"})
#: `pl` vector ops whose last positional argument is a scalar of the tiles' dtype.
_SCALAR_OPS = frozenset({"adds", "subs", "muls", "divs", "maxs", "mins", "ands", "ors", "shls", "shrs",
                         "axpy", "leaky_relu", "duplicate", "fill", "compare_scalar", "select_scalar"})
#: `math` functions that return an integer (every other one returns a float)
_MATH_INTEGERS = frozenset({"floor", "ceil", "trunc", "gcd", "lcm", "isqrt", "comb", "perm", "factorial"})
_BUILTIN_TYPES = {"int": INT, "float": FLOAT, "len": INT, "round": INT, "bool": INT}


def initialiser(kind: str, pl: str) -> str:
    """The text of a zero of `kind` ("int", "float" or a dtype leaf such as "DT_FP16")."""
    if kind == INT:
        return "0"
    if kind == FLOAT:
        return "0.0"
    return f"{pl}.const({'0.0' if kind in FLOAT_DTYPES else '0'}, {pl}.{kind})"


def is_float(kind: str | None) -> bool:
    return kind == FLOAT or kind in FLOAT_DTYPES


def join(a: str | None, b: str | None) -> str | None:
    """The type of a value that may be either (None: unknown)."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if is_float(a) != is_float(b):
        # an int next to a float is promoted to the float, a kernel float where the float's dtype is
        # narrow (probe h101: fp16 `alpha` times an int, carried in an fp16 field, was rounded)
        float_side = a if is_float(a) else b
        return FLOAT if DTYPE_BITS.get(float_side, 32) < 32 else float_side
    plain = {a, b} & {INT, FLOAT}
    if plain:
        # a literal takes the dtype of the typed side when that is at least a kernel scalar's width
        # (32 bits); a narrower one is promoted (`alpha * scale` of an fp16 `alpha`, an int8 read
        # plus an offset: probe h100), the value a kernel scalar
        typed = (set((a, b)) - plain).pop()
        return typed if DTYPE_BITS.get(typed, 0) >= 32 else plain.pop()
    # two dtypes: floats in a kernel float; ints of another width or sign in one that holds both
    # (probe h101: an int32 or a uint32 in an int32 field wrapped 3e9), an int64 and a uint64 in a
    # kernel integer, which holds both (probe h109: refused as of a kind that cannot be told)
    return FLOAT if is_float(a) else "DT_INT64" if {a, b} != {"DT_INT64", "DT_UINT64"} else INT


def field_kind(kind: str) -> str:
    """The type of the ctx field carrying a value of `kind`: a kernel scalar, `0` or `0.0`, never
    a dtype of its own: a field of the value's dtype changes it wherever the typing erred or the
    serial kernel computed past it (probes h105, h107: int8, uint32, int64, uint64, fp16 and fp32
    fields wrapped or rounded what the serial kernel kept), and a kernel scalar holds every value
    of a dtype exactly."""
    return FLOAT if is_float(kind) else INT


def arithmetic(a: str | None, b: str | None) -> str | None:
    """The type of `a op b`: a plain integer or float, whatever dtypes its operands have. The
    serial kernel computes with their values (an fp32 parameter plus `1e-9`, an int32 one times
    4: `2 ** 32`, neither rounded nor wrapped), so the field carrying the result must hold
    whatever that gives (probes h101 and h103: fp16, fp32, int32 and uint32 fields rounded or
    wrapped what the serial kernel kept); with a 64-bit integer operand, a 64-bit field."""
    kind = join(a, b)
    if kind is None:
        return None
    if is_float(kind):
        return FLOAT
    return kind if DTYPE_BITS.get(kind, 0) >= 64 else INT  # (a 64-bit operand: a field as wide)


class ScalarTypes:
    """The scalar types of one function's names (the kernel's, or a helper's with its
    parameters bound to the argument types), and of expressions over them."""

    def __init__(self, file, kernel, fn: cst.FunctionDef | None = None, fixed: dict | None = None,
                 active: set | None = None, containers: dict | None = None):
        self.file, self.kernel = file, kernel
        #: a helper's parameters bound to a tile or tensor of the caller: its element dtype
        self._containers: dict[str, str | None] = dict(containers or {})
        fn = fn if fn is not None else kernel.node
        self._params = {p.name.value: p for p in fn.params.params} if fixed is None else {}
        #: a helper's parameters: names of its own, never the module's or the kernel's of the same
        #: spelling (probe h103: `SCALES[k]` of a parameter typed as the module tuple `SCALES`)
        self._own = {p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)} \
            if fixed is not None else set()
        self._fixed: dict[str, str | None] = dict(fixed or {})
        self._bindings = dict(bindings(file, fn))
        for name in [n for n in self._fixed if n in self._bindings]:
            # a helper's parameter its body rebinds (`p = p / 100`): the argument's type on entry,
            # joined with what the body binds (probe h100: taken for the argument's type alone)
            self._bindings[name].append(("fixed", self._fixed.pop(name)))
        for name, param in self._params.items():  # a parameter the body rebinds: what it holds on entry too
            if name in self._bindings:
                self._bindings[name].append(("annotation", param.annotation))
        keys = file.instances(kernel)
        self._keys = set(keys.keys[0]) if keys.known and keys.keys else set()
        self._active: set = active if active is not None else set()
        self.names: dict[str, str | None] = dict(self._fixed)  #: the names solved so far
        self._pending: dict[str, str | None] = {}  #: the names being solved ("?": no type yet)
        self._read_names: dict[cst.CSTNode, list[str]] = {}  #: binding value -> the names it reads (`_reads`)
        self._fields_typing: set[tuple[str, str]] = set()  #: struct fields whose type is being worked out
        #: the `/` of two numbers not known to be floats met so far (`division_in`)
        self._divisions: set[cst.BinaryOperation] = set()

    def division_in(self, expr: cst.BaseExpression) -> cst.BinaryOperation | None:
        """A `/` of two integers (or of numbers of unknown kind) that `expr` is computed through,
        directly or through the bindings of the names it reads: why its type is unknown."""
        seen: set[str] = set()
        todo: list[cst.CSTNode] = [expr]
        while todo:
            node = todo.pop()
            found = next((d for d in self.file.find(node, cst.BinaryOperation) if d in self._divisions), None)
            if found is not None:
                return found
            for name in self._reads(node):
                if name not in seen:
                    seen.add(name)
                    todo += [v for kind, v in self._bindings.get(name, ()) if kind == "value"]
        return None

    def _solve(self, name: str) -> None:
        """`name`'s type and those of the names its bindings read, transitively: the join of
        all bindings of each, to a fixed point ("?": not known yet, while the bindings it
        depends on are worked out)."""
        closure, todo = set(), [name]
        while todo:
            n = todo.pop()
            if n in closure or n in self.names or n not in self._bindings:
                continue
            closure.add(n)
            todo += [r for kind, node in self._bindings[n] if kind == "value" for r in self._reads(node)]
        pending: dict[str, str | None] = {n: "?" for n in closure}
        for _ in range(4 * len(closure) + 2):  # each name's type rises a few times at most
            self._pending = pending
            after = dict(pending)
            for n in closure:
                known = [k for k in (self._binding(v) for v in self._bindings[n]) if k != "?"]
                result: str | None = known[0] if known else "?"
                for k in known[1:]:
                    result = join(result, k)
                after[n] = result
            if after == pending:
                break
            pending = after
        else:
            pending = dict.fromkeys(closure)  # not settled: unknown, never a guess
        self._pending = {}
        self.names.update({n: (None if k == "?" else k) for n, k in pending.items()})

    def _binding(self, value) -> str | None:
        kind, node = value
        if kind == "fixed":
            return node
        if kind == "annotation":
            return self._annotated(node)
        if kind == "loop":
            return self._loop_item(*node)
        found = self.of(node)
        if found is None and any(self._pending.get(n) == "?" for n in self._reads(node)):
            return "?"
        return found

    def _annotated(self, annotation: cst.Annotation | None) -> str | None:
        """The dtype an annotation names: `pl.DT_X`, a module name bound to one, or a name the
        function binds itself to `pl.DT_X` values only (`tag_t = pl.DT_INT8`, `tag: tag_t = ...`,
        probe h110), never the module's value of a name the function binds (None then)."""
        node = annotation.annotation if annotation is not None else None
        if not (isinstance(node, cst.Name) and node.value in self._bindings):
            return _dtype_of_annotation(self.file, annotation)
        return dtype_bound(self.file, self._bindings, node.value)

    def _dtype_named(self, node: cst.BaseExpression) -> str | None:
        """The dtype a `pl.DT_X` expression names, or a name bound to one: the function's own
        bindings of the name (`tag_dt = pl.DT_INT8`, probe h110), else the module's."""
        if isinstance(node, cst.Name) and node.value in self._bindings:
            return dtype_bound(self.file, self._bindings, node.value)
        return _leaf(self.file, node)

    def _loop_item(self, target: cst.BaseExpression, it: cst.BaseExpression, name: str) -> str | None:
        """The type of loop variable `name` of `for target in it`: an int over `range`/`pl.range`
        (and the count of `enumerate`), the join of a literal tuple's or list's items; else
        unknown (`for s in SCALES` may hand a float on)."""
        if isinstance(it, cst.Call):
            callee = it.func.value if isinstance(it.func, cst.Name) and self.file.meaning(it.func.value) is None \
                else None
            if self.file.pl.path(it.func) == ("range",) or callee == "range":
                return INT if _is_name(target, name) else None
            if callee == "enumerate" and isinstance(target, (cst.Tuple, cst.List)) and target.elements \
                    and _is_name(target.elements[0].value, name):
                return INT
            return None
        if isinstance(it, (cst.Tuple, cst.List)) and _is_name(target, name) and it.elements \
                and not any(isinstance(e, cst.StarredElement) for e in it.elements):
            return self._joined([e.value for e in it.elements])
        return None

    def _reads(self, node: cst.CSTNode) -> list[str]:
        """The names a binding's value reads (walked once)."""
        cache = self._read_names
        if node not in cache:
            cache[node] = [n.value for n in self.file.find(node, cst.Name)]
        return cache[node]

    # expressions -------------------------------------------------------------------------
    def of(self, expr: cst.BaseExpression) -> str | None:
        """The type of `expr` (None: unknown)."""
        if isinstance(expr, cst.Integer):
            return INT
        if isinstance(expr, cst.Float):
            return FLOAT
        if isinstance(expr, cst.Name):
            return self._name(expr.value)
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.of(expr.left), self.of(expr.right)
            if isinstance(expr.operator, cst.Divide) and not (is_float(left) or is_float(right)):
                self._divisions.add(expr)
                return None  # `/` of two ints: whether the JIT keeps an int is not documented
            if isinstance(expr.operator, cst.Power) and not (is_float(left) or is_float(right)):
                # an int to a negative power is a float: an int only for a power known not negative
                power = self.file.evaluator.try_eval(expr.right, None)
                if not (isinstance(power, int) and power >= 0):
                    return None
            return arithmetic(left, right)
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return INT
            inner = self.of(expr.expression)
            return arithmetic(inner, inner)  # `-shift` of a uint32: a plain integer, as `0 - shift` is
        if isinstance(expr, cst.Comparison):
            return INT
        if isinstance(expr, cst.BooleanOperation):  # `a or b` is one of its operands
            return join(self.of(expr.left), self.of(expr.right))
        if isinstance(expr, cst.IfExp):
            return join(self.of(expr.body), self.of(expr.orelse))
        if isinstance(expr, cst.NamedExpr):  # `(j := i + 1)` is the value it binds
            return self.of(expr.value)
        if isinstance(expr, cst.Call):
            return self._call(expr)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr)
        return None

    def _name(self, name: str) -> str | None:
        if name in ("True", "False"):
            return INT
        if name in self._pending:
            found = self._pending[name]
            return None if found == "?" else found
        if name in self._bindings and name not in self.names:
            self._solve(name)
        if name in self.names:
            return self.names[name]
        if name in self._params:
            return _dtype_of_annotation(self.file, self._params[name].annotation)
        if name in self._own:
            return None  # a helper's parameter no argument types
        if name in self._keys:
            return INT
        meaning = self.file.meaning(name)
        if isinstance(meaning, Value):
            value = meaning.value
            if isinstance(value, (bool, int)):
                return INT
            if isinstance(value, float):
                return FLOAT
        return None

    def _call(self, call: cst.Call) -> str | None:
        path = self.file.pl.path(call.func)
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        if path is not None:
            op = path[-1]
            if op in _INDEX_CALLS:
                return INT
            given = const_dtype_argument(call) if op == "const" and args else None
            if given is not None:  # (`pl.const(v, pl.DT_X)`, `dtype=`, or a name bound to one)
                return self._dtype_named(given)
            if op == "getval" and args:
                return self.container_dtype(args[0])
            if path in PL_NUMERIC and args:  # the scalar `pl.min`/`pl.max`: the type of its arguments
                return self._joined(args)
            return None
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and self.file.names.origins.get(func.value.value) == "math":
            return INT if func.attr.value in _MATH_INTEGERS else FLOAT  # `math.sqrt(x)`: a float
        if isinstance(call.func, cst.Name):
            name = call.func.value
            if self.file.meaning(name) is None and name == "round" and (len(call.args) > 1 or any(
                    a.keyword is not None for a in call.args)) and args:
                return self.of(args[0])  # `round(x, 1)` keeps the type of `x`
            if self.file.meaning(name) is None and name in _BUILTIN_TYPES:
                return _BUILTIN_TYPES[name]
            if self.file.meaning(name) is None and name in ("min", "max", "abs") and args:
                return self._joined(args)
            helper = self.file.helpers.get(name)
            if isinstance(helper, cst.FunctionDef):
                return self._helper(helper, call)
        return None

    def _joined(self, args: list) -> str | None:
        result = self.of(args[0])
        for a in args[1:]:
            result = join(result, self.of(a))
        return result

    def _helper(self, fn: cst.FunctionDef, call: cst.Call) -> str | None:
        """The type `fn` returns given the argument types (its own bindings followed once), never
        its return annotation: Python converts nothing on return (probe h103: `-> int` of a
        helper returning 0.75 typed the field int, which truncated it; probe h113: where the
        bindings did not tell, `-> int` of one returning `pow(1.5, k)`, which the check does not
        compute, so no comparison showed the truncation)."""
        return self._returned(fn, call)

    def _returned(self, fn: cst.FunctionDef, call: cst.Call) -> str | None:
        if fn in self._active:
            return None
        self._active.add(fn)
        try:
            params = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]  # (probe h107)
            given = list(zip(params, [a for a in call.args if a.keyword is None and not a.star], strict=False))
            given += [(a.keyword.value, a) for a in call.args if a.keyword is not None]
            bound = {p: self.of(a.value) for p, a in given}
            for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):  # at its default
                if p.name.value not in bound and p.default is not None:
                    bound[p.name.value] = _default_type(self.file, p.default)
            containers = {p: self.container_dtype(a.value) for p, a in given}
            inner = ScalarTypes(self.file, self.kernel, fn, bound, self._active,
                                {p: d for p, d in containers.items() if d is not None})
            result: str | None = "?"
            for ret in self.file.find(fn.body, cst.Return, skip_functions=True):
                kind = inner.of(ret.value) if ret.value is not None else None
                result = kind if result == "?" else join(result, kind)
            return None if result == "?" else result
        finally:
            self._active.discard(fn)

    def _subscript(self, node: cst.Subscript) -> str | None:
        base = node.value
        owner = base.value if isinstance(base, cst.Attribute) and base.attr.value == "shape" else None
        if isinstance(owner, cst.Name) and (self._declared_dtype(owner.value) or self.container_dtype(owner)):
            return INT  # a dimension of a tensor or tile (not any `.shape`: probe h103, a class's tuple of floats)
        if len(node.slice) >= 1 and all(isinstance(e.slice, cst.Index) for e in node.slice):
            found = self.container_dtype(base)  # one element of a tile or tensor
            if found is None and len(node.slice) == 1:
                found = self._constant_item(node)
            return found
        return None

    def _constant_item(self, node: cst.Subscript) -> str | None:
        """The kind the items of a module constant share, for an item of it (`GAINS[j % 2]`,
        probe h101) or an item of an item (`PICK[j % 2][0]` of a tuple of tuples)."""
        root, depth = node.value, 1
        while isinstance(root, cst.Subscript) and len(root.slice) == 1 and isinstance(root.slice[0].slice, cst.Index):
            root, depth = root.value, depth + 1
        if not isinstance(root, cst.Name) or root.value in self._bindings or root.value in self._params \
                or root.value in self._own:
            return None
        meaning = self.file.meaning(root.value)
        values: list = [meaning.value] if isinstance(meaning, Value) else []
        for _ in range(depth):
            if not values or not all(isinstance(v, (tuple, list)) for v in values):
                return None
            values = [item for v in values for item in v]
        kinds = {FLOAT if isinstance(v, float) else INT if isinstance(v, int) else None for v in values}
        return kinds.pop() if len(kinds) == 1 and None not in kinds else None

    def _attribute(self, node: cst.Attribute) -> str | None:
        base = node.value
        if not isinstance(base, cst.Name):
            return None
        decls = self.kernel.structs.get(base.value) if base.value not in self._own else None
        key = (base.value, node.attr.value)
        if decls and key in self._fields_typing:  # (`st = pl.struct(g=st.g + 0.5)`: probe h108)
            return None
        if decls:
            self._fields_typing.add(key)
            try:
                return self._declared_field(decls, node)
            finally:
                self._fields_typing.discard(key)
        return self._param_field(base, node)

    def _declared_field(self, decls: list, node: cst.Attribute) -> str | None:
        if decls:
            # declared in several places (`if mode: st = pl.struct(g=0)` / `else: ... g=0.0`): a type
            # that holds each (probe h101: the first declaration's alone truncated the other's float)
            kind: str | None = "?"
            for decl in decls:
                init = next((a.value for a in decl.call.args if a.keyword is not None
                             and a.keyword.value == node.attr.value), None)
                # a field initialised by `True`/`False` holds what it is given (PyPTO and the emulator
                # type it by no number): not typed by it (probe h107: an int field truncated a float)
                boolean = init is not None and self._may_be_bool(init, set())
                found = self.of(init) if init is not None and not boolean else None
                kind = found if kind == "?" else join(kind, found)
            return None if kind == "?" else kind
        return None

    def _may_be_bool(self, node: cst.BaseExpression, seen: set[str]) -> bool:
        """May `node` be a bool, which types no struct field: `True`, a module name bound to one
        (probe h113: `g=USE_GAIN` typed the field int, which truncated the float stored in it), a
        comparison, `not x`, `bool(x)`, `a and b` of such, a name the function binds to such."""
        if isinstance(node, cst.Comparison) or isinstance(node, cst.UnaryOperation) \
                and isinstance(node.operator, cst.Not):
            return True
        if isinstance(node, cst.BooleanOperation):
            return self._may_be_bool(node.left, seen) or self._may_be_bool(node.right, seen)
        if isinstance(node, cst.IfExp):
            return self._may_be_bool(node.body, seen) or self._may_be_bool(node.orelse, seen)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "bool" \
                and self.file.meaning("bool") is None:
            return True
        if isinstance(node, cst.Name) and node.value in self._bindings:
            if node.value in seen:
                return False
            seen.add(node.value)
            return any(kind == "value" and self._may_be_bool(value, seen) for kind, value in self._bindings[node.value])
        if isinstance(node, cst.Name) and node.value in ("True", "False"):
            return True
        return isinstance(self.file.evaluator.try_eval(node, None), bool)

    def _param_field(self, base: cst.Name, node: cst.Attribute) -> str | None:
        param = self._params.get(base.value)
        if param is not None and param.annotation is not None and isinstance(param.annotation.annotation, cst.Name):
            return _dataclass_field(self.file, param.annotation.annotation.value, node.attr.value)
        return None

    def container_dtype(self, node: cst.BaseExpression) -> str | None:
        """The element dtype of a tile (a slot of a group) or a tensor parameter."""
        if not isinstance(node, cst.Name):
            return None
        name = node.value
        if name in self._containers:
            return self._containers[name]
        group = self.kernel.slot_vars.get(name) or (name if name in self.kernel.buffers else None)
        values = [value for kind, value in self._bindings.get(name, []) if kind == "value"]
        if group is not None and len(values) > 1:
            # a name bound to slots of several groups (`t = u` then `t = v`): a dtype holding each
            # (probe h107: typed by the first group's alone, an int32 field truncated an fp32 value)
            groups = [self.kernel.slot_vars.get(v.value) if isinstance(v, cst.Name) else
                      (slot_access(v, self.kernel.buffers) or (None,))[0] for v in values]
            kinds = {_group_dtype(self.file, self.kernel.buffers[g].call) if g is not None else None for g in groups}
            if None in kinds:
                return None
            found = kinds.pop()
            for k in kinds:
                found = join(found, k)
            return found
        if group is not None:
            return _group_dtype(self.file, self.kernel.buffers[group].call)
        rebound = [value for kind, value in self._bindings.get(name, []) if kind != "annotation"]
        if rebound:
            # `gains = gains32`: the element dtype of each tensor parameter it is bound to, when they
            # agree (probe h103: a getval of it was typed by the parameter's annotation alone)
            kinds = {self._declared_dtype(name)} | {self._declared_dtype(v.value) if isinstance(v, cst.Name) else None
                                                    for v in rebound}
            return kinds.pop() if len(kinds) == 1 else None
        return self._declared_dtype(name)

    def _declared_dtype(self, name: str) -> str | None:
        """The element dtype a tensor parameter is declared with."""
        param = self._params.get(name)
        if param is not None and param.annotation is not None:
            ann = param.annotation.annotation
            if isinstance(ann, cst.Subscript) and len(ann.slice) > 1 and isinstance(ann.slice[1].slice, cst.Index):
                return _leaf(self.file, ann.slice[1].slice.value)
        return None


def stage_use_type(file, types: ScalarTypes, stage_fn: cst.FunctionDef, param: str) -> str | None:
    """What the uses of a stage parameter say of its type: an index, a loop bound or an
    offset is an int; the scalar of a vector op is a float or an int as its tile's dtype is,
    at the full width of a kernel scalar (None: nothing)."""
    found: str | None = "?"
    for call in file.find(stage_fn.body, cst.Call):
        path = file.pl.path(call.func)
        if path is None:
            continue
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        if path == ("range",) and any(_bare(a, param) for a in args):
            # (a bound is an int only where the parameter stands outside a call: `int(p * 2)` may
            # take a float, probe h173)
            found = INT if found in ("?", INT) else None
        elif path[-1] in _SCALAR_OPS and args and _is_name(args[-1], param):
            # the op converts the scalar to its tile's dtype; the value carried is the kernel's own
            # (a float scalar, or an int), which a narrower field would round before a test reads
            # it (probe h98: fp16 made 1.0001 1.0 for `gain > 1.0`)
            tile = _tile_dtype_in(file, types, stage_fn, args[0])
            kind = None if tile is None else FLOAT if is_float(tile) else INT
            found = kind if found == "?" else join(found, kind)
        else:
            for a in args:
                if isinstance(a, (cst.List, cst.Tuple)) and any(_bare(e.value, param) for e in a.elements):
                    found = INT if found in ("?", INT) else None  # an offset list
    for sub in file.find(stage_fn.body, cst.Subscript):
        if any(isinstance(e.slice, cst.Index) and _bare(e.slice.value, param) for e in sub.slice) \
                and not _keyed(file, stage_fn, sub.value):
            found = INT if found in ("?", INT) else None  # an index
    return None if found == "?" else found


def _keyed(file, stage_fn: cst.FunctionDef, base: cst.BaseExpression) -> bool:
    """May `base` be a dict, whose keys may be floats (`SCALE_OF_GAIN[gain]`, probe h113: the key
    taken for an index typed a float's ctx field int)? A dict written out or made by `dict`, or
    a name the stage or the module binds to one."""
    if isinstance(base, (cst.Dict, cst.DictComp)):
        return True
    if isinstance(base, cst.Call) and isinstance(base.func, cst.Name) and base.func.value == "dict":
        return True
    if isinstance(base, cst.Name):
        local = dict(bindings(file, stage_fn)).get(base.value)
        if local is not None:
            return any(kind != "value" or _keyed(file, stage_fn, node) for kind, node in local)
        meaning = file.meaning(base.value)
        return isinstance(meaning, Value) and isinstance(meaning.value, dict)
    return False


def _bare(node: cst.CSTNode, name: str) -> bool:
    """Does `name` stand in `node` outside any call? An offset computed from it there is an int
    only if it is one; under a call (`int(x * 2)`, `round(x)`) it may be a float the call turns
    into an int (probe h109: `[int(x * 2) % 4 * HALF, 0]` typed a float `x`'s field int)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name) and n.value == name:
            return True
        if not isinstance(n, cst.Call):
            stack.extend(n.children)
    return False


# helpers -----------------------------------------------------------------------------------
#: the name a value unpacked from one the analysis cannot split is bound to: one no kernel binds
UNPACKED = "__pto_unpacked__"


def _default_type(file, default: cst.BaseExpression) -> str | None:
    """The type of a parameter's default, computed where the `def` stands (module level): a number
    (or a module name bound to one)."""
    value = file.evaluator.try_eval(default, None)
    return None if isinstance(value, bool) or not isinstance(value, (int, float)) \
        else FLOAT if isinstance(value, float) else INT


def _unpacked_bindings(file, target: cst.Tuple | cst.List, value: cst.BaseExpression | None, out: dict) -> None:
    """The names of an unpacking target with their values, nested targets too (`(d, e), f =
    (x, i), 2`: probe h103, `d` went unseen); a value nothing binds (`UNPACKED`) where the
    unpacking is not of a display."""
    values = unpacked(target, value, lambda name: file.meaning(name) is None) if value is not None else None
    for i, el in enumerate(target.elements):
        item = values[i] if values is not None else None
        if isinstance(el.value, cst.Name):
            out.setdefault(el.value.value, []).append(("value", item if item is not None else cst.Name(UNPACKED)))
        elif isinstance(el.value, (cst.Tuple, cst.List)):
            _unpacked_bindings(file, el.value, item, out)


def bindings(file, fn: cst.FunctionDef) -> Iterator[tuple[str, list]]:
    """name -> every value bound to it in `fn` (nested functions left out)."""
    out: dict[str, list] = {}
    for node in file.find(fn.body, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr, cst.AsName),
                          skip_functions=True):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    out.setdefault(t.target.value, []).append(("value", node.value))
                elif isinstance(t.target, (cst.Tuple, cst.List)):
                    # `a, b = x, y` (or `divmod(n, d)`) binds each name to its value; any other
                    # unpacking to a value nothing binds (`UNPACKED`), of no type the analysis knows
                    _unpacked_bindings(file, t.target, node.value, out)
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
            builtin = isinstance(node.annotation.annotation, cst.Name) and node.annotation.annotation.value in (
                "int", "float", "bool") and file.meaning(node.annotation.annotation.value) is None
            if builtin and node.value is not None:
                # `g: int = 0.5`: Python converts nothing, the value is what it is (probe h101)
                out.setdefault(node.target.value, []).append(("value", node.value))
            else:
                out.setdefault(node.target.value, []).append(("annotation", node.annotation))
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            op = AUGMENTED[type(node.operator)]()
            out.setdefault(node.target.value, []).append(("value", cst.BinaryOperation(node.target, op, node.value)))
        elif isinstance(node, cst.For):
            for n in file.find(node.target, cst.Name):
                out.setdefault(n.value, []).append(("loop", (node.target, node.iter, n.value)))
        elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            out.setdefault(node.target.value, []).append(("value", node.value))  # `(gain := ...)`
        elif isinstance(node, cst.AsName):
            # `with ... as x`, `except E as x`: a value of no type the analysis reads
            for n in file.find(node.name, cst.Name):
                out.setdefault(n.value, []).append(("value", cst.Name(UNPACKED)))
    return iter(out.items())


def _dtype_of_annotation(file, annotation: cst.Annotation | None) -> str | None:
    if annotation is None:
        return None
    node = annotation.annotation
    if isinstance(node, cst.Name) and node.value in ("int", "bool"):
        return INT
    if isinstance(node, cst.Name) and node.value == "float":
        return FLOAT
    leaf = _leaf(file, node)
    return leaf if leaf in DTYPE_BITS else None


def dtype_bound(file, bound: dict, name: str) -> str | None:
    """The `pl` dtype a name the function binds stands for (`bound`: `bindings`): every binding
    `pl.DT_X` written out, the same one (`tag_t = pl.DT_INT8`); None for any other."""
    found = {file.pl.path(value) if kind == "value" else None for kind, value in bound.get(name, [])}
    path = found.pop() if len(found) == 1 else None
    return path[0] if path is not None and len(path) == 1 and path[0] in DTYPE_BITS else None


def _leaf(file, node: cst.BaseExpression) -> str | None:
    """The dtype a `pl.DT_X` expression (or a module constant bound to one) names."""
    value = file.evaluator.try_eval(node)
    return value.leaf if isinstance(value, PlSymbol) and value.leaf in DTYPE_BITS else None


def _group_dtype(file, call: cst.Call) -> str | None:
    ttype = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "type"), None)
    if not isinstance(ttype, cst.Call):
        return None
    dtype = next((a.value for a in ttype.args if a.keyword is not None and a.keyword.value == "dtype"), None)
    if dtype is None:
        positional = [a.value for a in ttype.args if a.keyword is None]
        dtype = positional[1] if len(positional) > 1 else None
    return _leaf(file, dtype) if dtype is not None else None


def _dataclass_field(file, cls_name: str, attr: str) -> str | None:
    meaning = file.meaning(cls_name)
    if not isinstance(meaning, Class) or not isinstance(meaning.node, cst.ClassDef):
        return None
    if any(isinstance(stmt, cst.FunctionDef) for stmt in meaning.node.body.body):
        return None  # a method may set the field to another type (`__post_init__`: probe h103)
    for stmt in meaning.node.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                        and small.target.value == attr:
                    return _dtype_of_annotation(file, small.annotation)
    return None


def _tile_dtype_in(file, types: ScalarTypes, fn: cst.FunctionDef, node: cst.BaseExpression) -> str | None:
    """The dtype of a tile a stage names (`x = x_db.next()` of a group parameter)."""
    if not isinstance(node, cst.Name):
        return None
    for assign in file.find(fn.body, cst.Assign):
        if any(isinstance(t.target, cst.Name) and t.target.value == node.value for t in assign.targets):
            value = assign.value
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                    and isinstance(value.func.value, cst.Name):
                return _param_group_dtype(file, types, fn, value.func.value.value)
    return None


def _param_group_dtype(file, types: ScalarTypes, fn: cst.FunctionDef, param: str) -> str | None:
    """The dtype of the group a stage parameter receives, over every call of the stage."""
    names = [p.name.value for p in fn.params.params]
    if param not in names:
        return None
    found: str | None = "?"
    for loop in types.kernel.loops:
        for stage in loop.stages:
            func = file.stages.get(stage.func)
            if func is None or func.node is not fn:
                continue
            for p, arg in stage.bind(names):
                if p == param:
                    kind = types.container_dtype(arg.value)
                    found = kind if found == "?" else join(found, kind)
    return None if found == "?" else found


def _names(node: cst.CSTNode) -> list[str]:
    return [n.value for n in iter_nodes(node) if isinstance(n, cst.Name)]


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return name in _names(node)


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name
