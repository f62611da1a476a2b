"""A safe evaluator for compile-time constants (never `eval`, never imports).

Folds literals, arithmetic, comparisons, boolean ops, tuples/lists, subscripts of constant
sequences, names whose module-level meaning is a value (`meaning.py`: what the name is bound
to when the module has run, worked out in order by `modulenames.py`), attribute constants
of `pl` (dtypes, memory spaces, layouts: kept as symbols) and a short whitelist of pure
builtins. Anything else raises NotConstant naming the offending node, and a name whose
meaning is unknown raises it with the reason.

The work is bounded, because the text is anyone's: results larger than any hardware
constant (`[12, 13] * 10**8`, `((10**4096)**4096)**4096`) are refused before they are
computed, and so is nesting deeper than Python's stack allows.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import libcst as cst

from pto_api.names import LAYOUTS, NUMERIC_CONSTANTS
from pto_transpile.read.meaning import Class, Function, Meaning, Unknown, Value


def literal_value(node: cst.SimpleString | cst.Integer | cst.Float) -> Any:
    """The value of a literal as Python's parser reads it. libcst's `evaluated_value` and
    `ast.literal_eval` read it so too, but each call leaves a reference cycle (a nested function
    that calls itself) for the cycle collector."""
    return cast(ast.Constant, ast.parse(node.value, mode="eval").body).value

class NotConstant(Exception):
    def __init__(self, node: cst.CSTNode, reason: str, cause: str = ""):
        super().__init__(reason)
        self.node = node
        self.reason = reason
        self.cause = cause or reason  #: the innermost reason, when constants are defined through others


@dataclass(frozen=True)
class PlSymbol:
    """An attribute constant of `pl`, such as `pl.DT_FP32` or `pl.MemorySpace.Vec`."""

    path: tuple[str, ...]

    @property
    def leaf(self) -> str:
        return self.path[-1]

    def __repr__(self) -> str:
        return "pl." + ".".join(self.path)


class Record:
    """An instance of a data class of the file made at module level of constants (`TILING =
    Tiling(rows=64)`, `@dataclass class Tiling: rows: int = 32`): its fields by name, read-only (a
    kernel that sets one is refused where it does). Equal as Python's data classes are: of one
    class, field by field; hashable when the class is frozen."""

    __slots__ = ("cls", "fields", "frozen", "key")

    def __init__(self, cls: str, fields: Mapping[str, Any], frozen: bool, key: int = 0):
        object.__setattr__(self, "cls", cls)
        object.__setattr__(self, "fields", dict(fields))
        object.__setattr__(self, "frozen", frozen)
        object.__setattr__(self, "key", key)  #: the class statement's identity: two classes of one name differ

    def __getattr__(self, name: str) -> Any:
        try:
            return object.__getattribute__(self, "fields")[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a field of `{self.cls}` made at module level is read-only here")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and (self.key, self.fields) == (other.key, other.fields)

    def __hash__(self) -> int:
        if not self.frozen:
            raise TypeError(f"unhashable type: '{self.cls}'")
        return hash((self.key, tuple(self.fields.items())))

    def __repr__(self) -> str:
        return f"{self.cls}({', '.join(f'{k}={v!r}' for k, v in self.fields.items())})"


#: The operators folded, by libcst node type (the soundness interpreter computes with them too).
BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.Divide: operator.truediv,
    cst.FloorDivide: operator.floordiv,
    cst.Modulo: operator.mod,
    cst.Power: operator.pow,
    cst.LeftShift: operator.lshift,
    cst.RightShift: operator.rshift,
    cst.BitAnd: operator.and_,
    cst.BitOr: operator.or_,
    cst.BitXor: operator.xor,
}
#: The binary operator of each augmented assignment (`x += y` is `x = x + y` for values).
AUGMENTED: dict[type, Callable[[], cst.BaseBinaryOp]] = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
    cst.BitAndAssign: cst.BitAnd, cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.MatrixMultiplyAssign: cst.MatrixMultiply,
}
_UNOPS: dict[type, Callable[[Any], Any]] = {
    cst.Minus: operator.neg,
    cst.Plus: operator.pos,
    cst.BitInvert: operator.invert,
    cst.Not: operator.not_,
}
def _identical(a: Any, b: Any) -> bool:
    """`a is b` as Python finds it, where that is known: between singletons (`None`, `True`,
    `False`, `...`) and between two spellings of one `pl` constant (one enum member). Equal
    numbers, strings or tuples may or may not be one object (the compiler merges the equal
    constants of one code object; a computed value is a new one): not a constant."""
    if any(x is None or x is Ellipsis or isinstance(x, bool) for x in (a, b)):
        return a is b
    if isinstance(a, PlSymbol) and isinstance(b, PlSymbol) and a.path == b.path:
        return True
    raise ValueError("whether two equal values are one object is not known without running the file")


_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
    cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
    cst.Is: lambda a, b: _identical(a, b),
    cst.IsNot: lambda a, b: not _identical(a, b),
}
def _sequence(kind: type) -> Callable[..., Any]:
    """`list(...)` / `tuple(...)` of a sequence or range no longer than `MAX_ITEMS`
    (`values=list(range(4))`); anything else is not folded."""
    def make(items: Any = ()) -> Any:
        if not isinstance(items, (list, tuple, range, str)) or len(items) > MAX_ITEMS:
            raise ValueError("not a short sequence")
        return kind(items)
    return make


#: Python's `math` functions a module constant may be computed with (`WARM = math.ceil(LATENCY / 2)`),
#: each returning a number from numbers
MATH: dict[str, Callable[..., Any]] = {name: getattr(math, name) for name in (
    "ceil", "floor", "trunc", "gcd", "lcm", "isqrt", "sqrt", "log2", "fabs", "copysign", "exp", "expm1", "log",
    "log10", "log1p", "pow", "hypot", "fmod", "remainder", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "degrees", "radians", "isfinite", "isinf",
    "isnan")}
#: the largest integer argument (in bits) a `math` function is folded on
MAX_FOLD_BITS = 64
_BUILTINS: dict[str, Callable[..., Any]] = {"len": len, "min": min, "max": max, "abs": abs, "pow": pow, "sum": sum,
                                            "divmod": divmod, "int": int, "range": range, "list": _sequence(list),
                                            "tuple": _sequence(tuple)}
_NAMED = {"True": True, "False": False, "None": None}
#: Limits of folding, shared with the soundness interpreter: the largest exponent,
MAX_POWER = 4096
#: Largest folded integer, in bits (10**4096 has 13,607), and longest folded sequence or string.
MAX_INT_BITS = 1 << 16
MAX_ITEMS = 1 << 16


def range_length(r: range) -> int:
    """`len(r)`, which raises OverflowError past `sys.maxsize` items (`range(0, 1 << 64)`): the
    count computed on Python's integers, for a limit to refuse."""
    step = r.step
    return max(0, (r.stop - r.start + step - (1 if step > 0 else -1)) // step)
#: Deepest evaluation (nested operators); deeper would exhaust Python's recursion limit, and
#: no compile-time constant needs it.
MAX_EVAL_DEPTH = 150


class ConstEvaluator:
    """Evaluates expressions against what module-level names mean.

    `names` maps a module-level name to its meaning (a live mapping: while the module is
    being worked out, the names as bound so far); `hidden` are names a function binds
    itself, which are never the module's inside it. `pl_path` turns an expression that
    names something of `pl` into its attribute path, or returns None.
    """

    def __init__(
        self,
        names: Mapping[str, Meaning],
        pl_path: Callable[[cst.BaseExpression], tuple[str, ...] | None],
        hidden: frozenset[str] | set[str] = frozenset(),
        origins: Mapping[str, str] | None = None,
        record_class: Callable[[str], bool] | None = None,
    ):
        self._names = names
        #: whether instances of the module-level class of that name are folded (`classnames.record_class`);
        #: None: no instance is made here (an instance the module made is read, `Record`)
        self._record_class = record_class
        self._hidden = hidden
        self._pl_path = pl_path
        self._depth = 0
        #: name -> what the import still binding it imported (`math`, `math.ceil`): the functions of
        #: Python's `math` in `MATH` are folded through them (None: not folded)
        self._origins = origins

    def meaning(self, name: str) -> Meaning | None:
        """What `name` means here at module level (None: not bound there, or hidden)."""
        return None if name in self._hidden else self._names.get(name)

    def _shadows(self, builtin: str) -> bool:
        """Whether a builtin's name is bound to something else here."""
        return builtin in self._hidden or builtin in self._names

    def try_eval(self, node: cst.BaseExpression, default: Any = None) -> Any:
        try:
            return self.eval(node)
        except NotConstant:
            return default

    def eval(self, node: cst.CSTNode) -> Any:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise NotConstant(node, f"`{type(node).__name__}` is not a compile-time constant")
        if self._depth >= MAX_EVAL_DEPTH:
            raise NotConstant(node, f"nested more than {MAX_EVAL_DEPTH} deep to fold")
        self._depth += 1
        try:
            return method(node)
        finally:
            self._depth -= 1

    # literals -------------------------------------------------------------------------
    def _Integer(self, node: cst.Integer) -> int:
        return int(node.value.replace("_", ""), 0)

    def _Float(self, node: cst.Float) -> float:
        return float(node.value.replace("_", ""))

    def _SimpleString(self, node: cst.SimpleString) -> Any:
        return literal_value(node)

    def _ConcatenatedString(self, node: cst.ConcatenatedString) -> Any:
        return self.eval(node.left) + self.eval(node.right)

    def _Tuple(self, node: cst.Tuple) -> tuple:
        return tuple(self._elements(node))

    def _List(self, node: cst.List) -> list:
        return list(self._elements(node))

    def _Dict(self, node: cst.Dict) -> dict:
        """`{"auto_mutex": True}`: keys and values folded in order (a key given twice keeps its
        last value, as Python's display does)."""
        out: dict = {}
        for el in node.elements:
            if type(el) is not cst.DictElement:
                raise NotConstant(el, "`**` in a dict display is not a compile-time constant")
            key = self.eval(el.key)
            if isinstance(key, PlSymbol) and (not _plain_member(key) or any(
                    isinstance(k, PlSymbol) and k != key and _canonical(k) == _canonical(key) for k in out)):
                # (`{pl.ND: 1, pl.TileLayout.ND: 2}` is one key to Python, `{pl.TilePad.null: 1, 0: 2}` too)
                raise NotConstant(el.key, "a `pl` constant as a key where Python may take two keys for one")
            try:
                hash(key)
            except TypeError:
                raise NotConstant(el.key, "a key that is not hashable") from None
            value = self.eval(el.value)
            if not _plain_data(value):  # `{"s": pl.store}`: ops are called by their names, which the scan reads
                raise NotConstant(el.value, "a dict value other than numbers, strings and displays of them")
            out[key] = value
        return out

    def _elements(self, node: cst.Tuple | cst.List) -> list:
        out = []
        for el in node.elements:
            if type(el) is cst.StarredElement:
                raise NotConstant(el, "starred elements are not compile-time constants")
            out.append(self.eval(el.value))
        return out

    # names and attributes --------------------------------------------------------------
    def _Name(self, node: cst.Name) -> Any:
        if node.value in _NAMED:
            return _NAMED[node.value]
        return self._name(node)

    def _name(self, node: cst.Name) -> Any:
        name = node.value
        meaning = self.meaning(name)
        if isinstance(meaning, Value):
            return meaning.value
        if isinstance(meaning, Unknown):
            raise NotConstant(node, f"`{name}` is not a compile-time constant ({meaning.reason})", meaning.reason)
        if isinstance(meaning, (Function, Class)):
            what = "function" if isinstance(meaning, Function) else "class"
            raise NotConstant(node, f"`{name}` is a {what}, not a compile-time constant")
        raise NotConstant(node, f"`{name}` is not bound to a compile-time constant at module level")

    def _Attribute(self, node: cst.Attribute) -> Any:
        path = self._pl_path(node)
        if path is not None:
            return PlSymbol(path)
        if isinstance(node.value, (cst.Name, cst.Attribute)):
            base = self.try_eval(node.value, None)
            if isinstance(base, Record) and node.attr.value in base.fields:
                return base.fields[node.attr.value]  # `TILING.rows` of a data class made at module level
        raise NotConstant(node, "attribute access is not a compile-time constant")

    # operators ------------------------------------------------------------------------
    def _BinaryOperation(self, node: cst.BinaryOperation) -> Any:
        fn = BINOPS.get(type(node.operator))
        if fn is None:
            raise NotConstant(node, "unsupported operator")
        left, right = self.eval(node.left), self.eval(node.right)
        huge = too_big(type(node.operator), left, right)
        if huge:
            raise NotConstant(node, f"the result would be {huge}; not folded")
        try:
            return fn(left, right)
        except Exception as exc:  # e.g. division by zero, mixing a symbol with an int
            raise NotConstant(node, f"cannot fold: {exc}") from None

    def _UnaryOperation(self, node: cst.UnaryOperation) -> Any:
        value = self.eval(node.expression)
        if isinstance(node.operator, cst.Not):
            return not _truth(value, node)
        try:
            return _UNOPS[type(node.operator)](value)
        except Exception as exc:
            raise NotConstant(node, f"cannot fold: {exc}") from None

    def _BooleanOperation(self, node: cst.BooleanOperation) -> Any:
        left = self.eval(node.left)
        if isinstance(node.operator, cst.And):
            return self.eval(node.right) if _truth(left, node) else left
        return left if _truth(left, node) else self.eval(node.right)

    def _Comparison(self, node: cst.Comparison) -> bool:
        left = self.eval(node.left)
        for target in node.comparisons:
            right = self.eval(target.comparator)
            ok = _pl_compared(target.operator, left, right, node)
            try:
                if ok is None:
                    ok = _CMPOPS[type(target.operator)](left, right)
            except Exception as exc:
                raise NotConstant(node, f"cannot fold: {exc}") from None
            if not ok:
                return False
            left = right
        return True

    def _IfExp(self, node: cst.IfExp) -> Any:
        return self.eval(node.body) if _truth(self.eval(node.test), node) else self.eval(node.orelse)

    def _Subscript(self, node: cst.Subscript) -> Any:
        value = self.eval(node.value)
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            raise NotConstant(node, "only single-index subscripts are folded")
        index = self.eval(node.slice[0].slice.value)
        try:
            return value[index]
        except Exception as exc:
            raise NotConstant(node, f"cannot fold: {exc}") from None

    def _Call(self, node: cst.Call) -> Any:
        if type(node.func) is cst.Name and node.func.value in _BUILTINS and not self._shadows(node.func.value):
            if any(a.keyword is not None or a.star for a in node.args):
                raise NotConstant(node, "keyword or starred arguments are not folded")
            args = [self.eval(a.value) for a in node.args]
            if node.func.value not in ("len", "list", "tuple") and _holds_pl(args):
                raise NotConstant(node, f"`{node.func.value}` of a `pl` constant is not folded: what Python computes "
                                        "of one is its enum's (`bool(pl.TilePad.null)` is False)")
            if node.func.value == "pow" and (len(args) != 2 or too_big(cst.Power, *args)):
                raise NotConstant(node, "`pow` of these is not folded (three arguments, or too large a result)")
            if node.func.value == "sum" and not (args and hasattr(args[0], "__len__") and len(args[0]) <= MAX_ITEMS):
                raise NotConstant(node, f"`sum` of more than {MAX_ITEMS} items is not folded")
            try:
                return _BUILTINS[node.func.value](*args)
            except Exception as exc:
                raise NotConstant(node, f"cannot fold: {exc}") from None
        fn = self._math_function(node.func)
        if fn is not None:
            if any(a.keyword is not None or a.star for a in node.args):
                raise NotConstant(node, "keyword or starred arguments are not folded")
            args = [self.eval(a.value) for a in node.args]
            if not all(type(a) in (int, float) and _size(a) <= MAX_FOLD_BITS for a in args):
                raise NotConstant(node, f"`math.{fn}` of these is not folded")
            try:
                return MATH[fn](*args)
            except Exception as exc:
                raise NotConstant(node, f"cannot fold: {exc}") from None
        if type(node.func) is cst.Name:
            meaning = self.meaning(node.func.value)
            if isinstance(meaning, Class) and isinstance(meaning.node, cst.ClassDef):
                return self._record(meaning.node, node)
        raise NotConstant(node, "function calls are not compile-time constants")

    def _record(self, cls: cst.ClassDef, node: cst.Call) -> Record:
        """`Tiling(rows=64)` of a data class of the file (`@dataclass`, a body of annotated fields
        whose defaults are constants, no method, base or class variable): its `Record`."""
        if self._record_class is None or not self._record_class(cls.name.value):
            raise NotConstant(node, f"`{cls.name.value}` is not a data class whose instances the check follows: "
                                    "`@dataclass` (at most `frozen=True`), fields annotated `int`, `float`, `bool` or "
                                    "`str` with constant defaults, the class only called")
        fields: dict[str, Any] = {}
        defaults: dict[str, cst.BaseExpression | None] = {}
        for stmt in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    defaults[small.target.value] = small.value
        names = list(defaults)
        positional = [a for a in node.args if a.keyword is None]
        if any(a.star for a in node.args) or len(positional) > len(names):
            raise NotConstant(node, f"the arguments of `{cls.name.value}(...)` are not folded")
        for name, a in zip(names, positional, strict=False):
            fields[name] = self.eval(a.value)
        for a in node.args:
            if a.keyword is not None:
                if a.keyword.value not in defaults or a.keyword.value in fields:
                    raise NotConstant(node, f"`{cls.name.value}` has no field `{a.keyword.value}` to give once")
                fields[a.keyword.value] = self.eval(a.value)
        for name in names:
            if name not in fields:
                default = defaults[name]
                if default is None:
                    raise NotConstant(node, f"field `{name}` of `{cls.name.value}` is not given")
                fields[name] = self.eval(default)
        if any(isinstance(v, float) and v != v for v in fields.values()):
            # a NaN: Python shares one object among instances made of one default (equal as the same
            # object), the fold makes one each (probe h116)
            raise NotConstant(node, f"a field of `{cls.name.value}(...)` is a NaN, which instances compare by object")
        return Record(cls.name.value, {name: fields[name] for name in names}, self._frozen(cls), id(cls))

    @staticmethod
    def _frozen(cls: cst.ClassDef) -> bool:
        """Whether `@dataclass(frozen=True)` makes the class's instances frozen (the class being one
        `classnames.record_class` found plain: its decorator's options are literal bools)."""
        decorator = cls.decorators[0].decorator
        return isinstance(decorator, cst.Call) and any(
            a.keyword is not None and a.keyword.value == "frozen" and isinstance(a.value, cst.Name)
            and a.value.value == "True" for a in decorator.args)

    def _math_function(self, func: cst.BaseExpression) -> str | None:
        """The name of the `math` function `func` stands for (`math.ceil`, `m.ceil` after `import
        math as m`, `ceil` after `from math import ceil`), when `MATH` folds it."""
        origins = self._origins
        if origins is None:
            return None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and origins.get(func.value.value) == "math" and func.attr.value in MATH:
            return func.attr.value
        if isinstance(func, cst.Name):
            origin = origins.get(func.value, "")
            head, _, leaf = origin.partition(".")
            return leaf if head == "math" and leaf in MATH else None
        return None


def _plain_data(value: Any) -> bool:
    """Numbers, strings, truth values, None, and tuples, lists and dicts of them."""
    if isinstance(value, (tuple, list)):
        return all(_plain_data(v) for v in value)
    if isinstance(value, dict):
        return all(_plain_data(k) and _plain_data(v) for k, v in value.items())
    return value is None or isinstance(value, (bool, int, float, str))


def _size(value: Any) -> int:
    """Bits of an int, items of a sequence or characters of a string; 0 for anything else."""
    if isinstance(value, bool):
        return 1
    if isinstance(value, int):
        return value.bit_length()
    if isinstance(value, (str, bytes, list, tuple)):
        return len(value)
    return 0


def too_big(op: type, left: Any, right: Any) -> str:
    """What is wrong with the result of `left op right` when it would be huge ("" when not),
    judged from the operands' sizes before anything is computed. One set of limits for the
    constant folder and the soundness interpreter."""
    ints = isinstance(left, int) and isinstance(right, int)
    if op is cst.Power and isinstance(right, int) and abs(right) > MAX_POWER:
        return f"a power with exponent {right} (at most {MAX_POWER})"
    if ints:
        if op is cst.Multiply:
            bits = _size(left) + _size(right)
        elif op is cst.Power:
            bits = _size(left) * max(right, 0)
        elif op is cst.LeftShift:
            bits = _size(left) + max(right, 0)
        else:
            return ""
        return f"an integer of about {bits} bits (at most {MAX_INT_BITS})" if bits > MAX_INT_BITS else ""
    if op is cst.Multiply:
        seq, count = (left, right) if isinstance(right, int) else (right, left)
        if isinstance(count, int) and isinstance(seq, (str, bytes, list, tuple)):
            items = _size(seq) * max(count, 0)
            return f"a sequence of {items} items (at most {MAX_ITEMS})" if items > MAX_ITEMS else ""
    if op is cst.Add and isinstance(left, (str, bytes, list, tuple)) and isinstance(right, (str, bytes, list, tuple)):
        items = _size(left) + _size(right)
        return f"a sequence of {items} items (at most {MAX_ITEMS})" if items > MAX_ITEMS else ""
    return ""


def _plain_member(symbol: PlSymbol) -> bool:
    """A `pl` constant Python compares by identity and holds true: not a number in disguise."""
    return symbol.path[0] not in NUMERIC_CONSTANTS  # (probes h178, h180)


def _canonical(symbol: PlSymbol) -> tuple[str, ...]:
    """The member a `pl` constant is, whichever of its names spells it."""
    path = symbol.path
    return ("TileLayout", path[0]) if len(path) == 1 and path[0] in LAYOUTS else path


def _holds_pl(value: Any) -> bool:
    """A `pl` constant, or a container holding one."""
    if isinstance(value, PlSymbol):
        return True
    if isinstance(value, dict):
        return _holds_pl(list(value.keys())) or _holds_pl(list(value.values()))
    return isinstance(value, (list, tuple, set, frozenset)) and any(_holds_pl(v) for v in value)


def _truth(value: Any, node: cst.CSTNode) -> bool:
    """Python's truth of a folded value: a `pl` constant that is a number in disguise (or a
    container of `pl` constants, which compare as their members) is not folded."""
    if isinstance(value, PlSymbol):
        if not _plain_member(value):
            raise NotConstant(node, f"the truth of `{value!r}` is not folded: it is an enum member of an int value")
        return True
    return bool(value)


def _pl_compared(op: cst.BaseCompOp, left: Any, right: Any, node: cst.CSTNode) -> bool | None:
    """A comparison with a `pl` constant as Python makes it: `==`, `!=`, `is`, `is not` of two
    members Python compares by identity (their names may differ: `pl.ND`, `pl.TileLayout.ND`);
    None where no `pl` constant takes part; any other is not folded (`pl.TilePad.null == 0` is True)."""
    if not (_holds_pl(left) or _holds_pl(right)):
        return None
    if isinstance(left, PlSymbol) and isinstance(right, PlSymbol) and _plain_member(left) and _plain_member(right) \
            and type(op) in (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot):
        same = _canonical(left) == _canonical(right)
        return same if type(op) in (cst.Equal, cst.Is) else not same
    raise NotConstant(node, "a comparison with a `pl` constant is not folded, but of two members Python tells "
                            "apart by identity (`pl.DT_FP32 == pl.DT_FP16`)")

