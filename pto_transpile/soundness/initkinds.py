"""Whether a struct field's initialiser holds a scalar of a `pl` dtype, read from the code.

PyPTO types each field of a `pl.struct(...)` by its initialiser: a value of a `pl` dtype (a
`pl.const(v, dtype)`, a local annotated with one, a parameter the launch passes typed) makes a
field of that dtype, which wraps or rounds what is stored later; a plain number makes a field of
integers, or one that keeps what it is given. The check's values are numbers without a dtype, so
the kind of an initialiser that is a name is read from where the name is bound: a name bound to
the result of a call, or a stage's parameter, which a ctx field of the pipelined kernel hands on
without the dtype the serial kernel's caller gave it (probe h109: `pl.struct(v=g)` in a stage of
a `g = pl.const(30, pl.DT_INT8)`), may be either, and the field is refused.
"""

from __future__ import annotations

import libcst as cst

from pto_transpile.read.plnames import const_dtype_argument

#: the kind of an initialiser that holds no `pl` dtype
PLAIN = "plain"
#: builtins whose result is a plain number whatever they are given
_PLAIN_BUILTINS = frozenset({"int", "float", "len", "round", "abs", "bool"})
#: builtins that give one of their arguments back
_CHOOSING_BUILTINS = frozenset({"min", "max"})
#: how many bindings deep a name is followed
_DEPTH = 6


class InitKinds:
    """`kind(expr)`: PLAIN, a `DT_*` name, or None where the code does not say."""

    def __init__(self, file, fn: cst.FunctionDef, kernel_fn: cst.FunctionDef) -> None:
        self.file, self.fn, self.kernel_fn = file, fn, kernel_fn
        self._bindings: dict[str, list] | None = None

    def kind(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        if depth > _DEPTH:
            return None
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary, cst.UnaryOperation, cst.BinaryOperation,
                             cst.Comparison)):
            return PLAIN  # (arithmetic on a value of a dtype gives a plain number)
        if isinstance(expr, cst.BooleanOperation):  # `g or 0` is one of its operands
            return _join(self.kind(expr.left, depth + 1), self.kind(expr.right, depth + 1))
        if isinstance(expr, cst.IfExp):
            return _join(self.kind(expr.body, depth + 1), self.kind(expr.orelse, depth + 1))
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.Subscript):
            return self._item(expr.value)
        if isinstance(expr, cst.Attribute):
            return self._field(expr, depth)
        if isinstance(expr, cst.Name):
            return self._name(expr.value, depth)
        return None

    def _item(self, value: cst.BaseExpression) -> str | None:
        """An item of `value`: a dimension (`x.shape[0]`), an element of a GM tensor parameter of
        the kernel (read as `pl.getval` reads it) or of a module name bound to numbers."""
        if isinstance(value, cst.Attribute) and value.attr.value == "shape":
            return PLAIN
        if not isinstance(value, cst.Name) or value.value in self._binding_map():
            return None
        if self.fn is self.kernel_fn and value.value in self._params():
            param = next(p for p in self._param_nodes() if p.name.value == value.value)
            ann = param.annotation.annotation if param.annotation is not None else None
            return PLAIN if isinstance(ann, cst.Subscript) and self.file.pl.path(ann.value) == ("Tensor",) else None
        items = self.file.constants.get(value.value) if value.value not in self._params() else None
        return PLAIN if isinstance(items, (list, tuple)) and items and all(
            type(v) in (int, float, bool) for v in items) else None

    def _call(self, call: cst.Call, depth: int) -> str | None:
        path = self.file.pl.path(call.func)
        if path == ("const",):
            given = const_dtype_argument(call)
            dtype = self.file.pl.path(given) if given is not None else None
            return dtype[0] if dtype and len(dtype) == 1 else None
        if path in (("min",), ("max",)):  # Python's own: they give back an argument (probe h111)
            return self._chosen(call, depth)
        if path:  # `pl.getval(...)`, `pl.get_block_idx()`: every other op gives a plain number
            return PLAIN
        if type(call.func) is cst.Name and self.file.meaning(call.func.value) is None \
                and call.func.value not in self._names() and call.func.value not in self._params():
            # (a builtin nothing rebinds: not a parameter of its name, `def f(v, int=keep)`, probe h110)
            if call.func.value in _PLAIN_BUILTINS:
                return PLAIN
            if call.func.value in _CHOOSING_BUILTINS:
                return self._chosen(call, depth)
        return None

    def _chosen(self, call: cst.Call, depth: int) -> str | None:
        """`min(...)`/`max(...)`: one of their arguments, as it is."""
        if not call.args or any(a.star for a in call.args):
            return None
        found = self.kind(call.args[0].value, depth + 1)
        for a in call.args[1:]:
            found = _join(found, self.kind(a.value, depth + 1))
        return found

    def _field(self, node: cst.Attribute, depth: int) -> str | None:
        """A field of a struct the function makes: the kind of its initialiser in every
        `pl.struct(...)` the name is bound to (None for a struct bound otherwise)."""
        if type(node.value) is not cst.Name or node.value.value in self._params() and self.fn is not self.kernel_fn:
            return None  # (a stage's struct parameter, bound again or not: its caller's struct, probe h110)
        bindings = self._binding_map().get(node.value.value) or []
        found: str | None = "?"
        for kind, value in bindings:
            if kind != "value" or type(value) is not cst.Call or self.file.pl.path(value.func) != ("struct",):
                return None
            init = next((a.value for a in value.args if a.keyword is not None
                         and a.keyword.value == node.attr.value), None)
            k = self._field_kind(init)
            found = k if found == "?" else _join(found, k)
        return None if found == "?" else found

    def _field_kind(self, init: cst.BaseExpression | None) -> str | None:
        """What a field initialised by `init` holds whatever is stored into it: values of the
        dtype of a `pl.const`, plain integers for an integer literal; a field of any other
        initialiser keeps what it is given, a value of a `pl` dtype a helper or an alias may
        store too (probe h110)."""
        if isinstance(init, cst.Call) and self.file.pl.path(init.func) == ("const",):
            return self._call(init, 0)
        # (`-1`, not `not 0`: a bool, which types no field, probe h111)
        bare = init.expression if isinstance(init, cst.UnaryOperation) and isinstance(
            init.operator, (cst.Minus, cst.Plus)) else init
        return PLAIN if isinstance(bare, cst.Integer) else None

    def _name(self, name: str, depth: int) -> str | None:
        if name in ("True", "False"):
            return PLAIN
        bindings = self._binding_map().get(name)
        if name in self._params():
            if self.fn is not self.kernel_fn or bindings:
                return None  # (a stage's or a helper's parameter: what its caller hands it)
            return self._kernel_param(name)
        if bindings is None:  # a module name: a number the module binds has no `pl` dtype
            value = self.file.constants.get(name)
            return PLAIN if type(value) in (int, float, bool) else None
        found: str | None = "?"
        for kind, node in bindings:
            if kind == "value":
                k = self.kind(node, depth + 1)
            elif kind == "annotation":
                path = self.file.pl.path(node.annotation)
                k = path[0] if path and len(path) == 1 and path[0].startswith("DT_") else None
            elif kind == "range":
                k = PLAIN
            else:
                k = None
            found = k if found == "?" else _join(found, k)
        return None if found == "?" else found

    def _kernel_param(self, name: str) -> str | None:
        """A kernel parameter: the launch passes one of a `pl` dtype typed, any other as it is."""
        param = next(p for p in self._param_nodes() if p.name.value == name)
        ann = param.annotation.annotation if param.annotation is not None else None
        if ann is None or param.default is not None and self.kind(param.default, _DEPTH) != PLAIN:
            return None  # (a run that passes nothing gets the default as it is: `g: int = pl.const(...)`, h111)
        path = self.file.pl.path(ann)
        if path and len(path) == 1 and path[0].startswith("DT_"):
            return path[0]
        # (a `bool` one is a Python bool, which types no field, where the check's number would: probe h110)
        return PLAIN if type(ann) is cst.Name and ann.value in ("int", "float") else None

    def _param_nodes(self) -> list:
        p = self.fn.params
        return [*p.posonly_params, *p.params, *p.kwonly_params]

    def _params(self) -> set[str]:
        return {p.name.value for p in self._param_nodes()}

    def _names(self) -> dict:
        return self._binding_map()

    def _binding_map(self) -> dict[str, list]:
        """Each name `fn` binds -> how: ("value", expr), ("annotation", annotation), ("range",
        target) for a loop over `range`/`pl.range`, ("other", node) for anything else."""
        if self._bindings is None:
            out: dict[str, list] = {}
            for node in self.file.find(self.fn.body, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For,
                                                      cst.NamedExpr, cst.AsName, cst.FunctionDef, cst.ClassDef,
                                                      cst.ImportAlias), skip_functions=True):
                if isinstance(node, cst.Assign):
                    for t in node.targets:
                        plain = type(t.target) is cst.Name
                        for n in self.file.find(t.target, cst.Name):
                            out.setdefault(n.value, []).append(("value", node.value) if plain else ("other", node))
                elif isinstance(node, cst.AnnAssign) and type(node.target) is cst.Name and node.value is not None:
                    out.setdefault(node.target.value, []).append(("annotation", node.annotation))
                elif isinstance(node, cst.AugAssign) and type(node.target) is cst.Name:
                    out.setdefault(node.target.value, []).append(("value", cst.BinaryOperation(
                        node.target, cst.Add(), node.value)))  # (any operator: a plain number)
                elif isinstance(node, cst.For):
                    ranged = type(node.iter) is cst.Call and (
                        self.file.pl.path(node.iter.func) == ("range",)
                        or type(node.iter.func) is cst.Name and node.iter.func.value == "range"
                        and self.file.meaning("range") is None)  # (the builtin: probe h111)
                    for n in self.file.find(node.target, cst.Name):
                        out.setdefault(n.value, []).append(("range" if ranged and type(node.target) is cst.Name
                                                            else "other", node))
                elif isinstance(node, cst.NamedExpr) and type(node.target) is cst.Name:
                    out.setdefault(node.target.value, []).append(("value", node.value))
                elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                    out.setdefault(node.name.value, []).append(("other", node))
                else:
                    for n in self.file.find(node, cst.Name):
                        out.setdefault(n.value, []).append(("other", node))
            self._bindings = out
        return self._bindings


def _join(a: str | None, b: str | None) -> str | None:
    return a if a == b else None
