"""What the fields of a tiling-data parameter hold, as the check takes them.

A launch passes each field a value of its declared type (`--arg` and the emulator refuse
others), but what reaches the kernel is what the object holds once built: a class's own code
may change it (`__post_init__` setting `self.k = self.k / 4`, inherited, assigned, or added
later by `TD.__init__ = ...`), and so may a default (`k: int = 1.5`). A declared `int` or
`bool` is trusted only where nothing but the launch can set the field: the class is sealed
(`_sealed`). Any other field is `float`: a number of any kind, data to the check.
"""

from __future__ import annotations

import ast

import libcst as cst

from pto_api.memory import scalar_int_values
from pto_transpile.read.consteval import literal_value
from pto_transpile.read.meaning import Class
from pto_transpile.read.walk import iter_nodes, parameters
from pto_transpile.soundness.params import INT64, int_range

#: the annotations a scalar field is read from (others, `int[4]` arrays, are left out)
SCALAR_TYPES = ("int", "float", "bool")


def tiling_field_types(file, param: cst.Param) -> dict[str, str] | None:
    """The scalar fields (`int`, `float`, `bool`) of a tiling-data parameter, one annotated with a
    module-level `@dataclass`, each with the type it is taken to hold; None for any other
    parameter. Array fields (`int[4]`) are left out: an element of one is unknown to the check.
    The class
    is the one the annotation's name means where the kernel is defined (the last of two `class`
    statements of one name, the class a `ScaleTiling = ScaleTilingV2` alias names)."""
    ann = param.annotation.annotation if param.annotation is not None else None
    if not isinstance(ann, cst.Name):
        return None
    meaning = file.meaning(ann.value)
    node = meaning.node if isinstance(meaning, Class) else None
    if not isinstance(node, cst.ClassDef) or not any(_dataclass(d) for d in node.decorators):
        return None
    lines = _small_statements(node)
    fields = {line.target.value: kind for line in lines
              if isinstance(line, cst.AnnAssign) and isinstance(line.target, cst.Name)
              and (kind := scalar_kind(file, line.annotation.annotation)) is not None}
    if not _sealed(file, node, lines):
        return dict.fromkeys(fields, "float")
    defaults = {line.target.value: line.value for line in lines
                if isinstance(line, cst.AnnAssign) and isinstance(line.target, cst.Name)}
    return {name: kind if _literal_of(defaults.get(name), kind) else "float" for name, kind in fields.items()}


def scalar_ranges(file, fn: cst.FunctionDef) -> dict[str, tuple[int, int]]:
    """The values each integer scalar of a kernel can take, by the type declared for it: a scalar
    parameter by name (`int_range`), a tiling-data field as `param.field` (`k: pl.DT_UINT8`: 0..255,
    as the emulator and `--arg` take it; probe h193: a field's test past 255 was refused as shown
    at 256). The check samples and cuts only within them."""
    out: dict[str, tuple[int, int]] = {}
    for p in parameters(fn):
        types = tiling_field_types(file, p)
        if types is None:
            out[p.name.value] = int_range(p, file.pl.path, file)
        else:
            out.update({f"{p.name.value}.{f}": scalar_int_values(t) or INT64 for f, t in types.items()})
    return out


def tiling_field_least(file, param: cst.Param, name: str) -> int | None:
    """The least value of an integer tiling-data field by the type it is taken to hold (`rounds:
    pl.DT_UINT8`: 0), as the emulator and `--arg` take it; None for any other field."""
    types = tiling_field_types(file, param)
    kind = types.get(name) if types is not None else None
    values = scalar_int_values(kind) if kind is not None else None
    return values[0] if values is not None else None


def tiling_methods(file, param: cst.Param) -> frozenset[str]:
    """The attributes of a tiling-data parameter whose read runs code of its class: each name
    its body defines with a `def` (a method, a property), and "*" where a `__getattr__` or
    `__getattribute__` may run for any name, or where a base, metaclass or other decorator may
    add either."""
    meaning = file.meaning(param.annotation.annotation.value) \
        if param.annotation is not None and isinstance(param.annotation.annotation, cst.Name) else None
    node = meaning.node if isinstance(meaning, Class) else None
    if not isinstance(node, cst.ClassDef):
        return frozenset()
    lines = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    names = {s.name.value for s in lines if isinstance(s, cst.FunctionDef)}
    # a class attribute bound by a plain assignment (`kick = property(_kick)`, no annotation: no
    # field) may be a descriptor whose read runs code
    names |= {t.target.value for s in lines if isinstance(s, cst.SimpleStatementLine) for small in s.body
              if isinstance(small, cst.Assign) for t in small.targets if isinstance(t.target, cst.Name)}
    # a field that may hold an object: one of another type than the numbers and arrays of numbers
    # the check reads (`hook: object`), or whose default calls something (`field(default_factory=K)`)
    names |= {small.target.value for s in lines if isinstance(s, cst.SimpleStatementLine) for small in s.body
              if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
              and (not _data_annotation(file, small.annotation.annotation) or small.value is not None and any(
                  isinstance(n, (cst.Call, cst.Lambda)) for n in iter_nodes(small.value)))}
    if names & {"__getattr__", "__getattribute__"} or node.bases or node.keywords \
            or any(not _dataclass(d) for d in node.decorators):
        names.add("*")
    return frozenset(names)


def _data_annotation(file, node: cst.BaseExpression) -> bool:
    """A scalar type (`scalar_kind`), or an array of one of them (`int[4]`)."""
    base = node.value if isinstance(node, cst.Subscript) else node
    return scalar_kind(file, base) is not None


def scalar_kind(file, ann: cst.BaseExpression) -> str | None:
    """The kind of number a field annotated `ann` holds: `int`, `float` or `bool`, a `pl`
    integer dtype's name (`DT_INT32`: the launch passes one of its values, as to a scalar
    parameter), `float` for a `pl` float dtype (`DT_FP32`); None for any other annotation."""
    if isinstance(ann, cst.Name):
        return ann.value if ann.value in SCALAR_TYPES else None
    path = file.pl.path(ann)  # (None for `float | None`, `list[int]`, `"int"`: probe h193)
    if path is None or len(path) != 1 or not path[0].startswith("DT_"):
        return None
    if scalar_int_values(path[0]) is not None:
        return path[0]
    return "float" if path[0].startswith(("DT_FP", "DT_BF")) else None


def operator_methods(methods: frozenset[str]) -> list[str]:
    """The special methods among a tiling class's `methods` that Python runs on the value itself
    where the kernel formats, tests, compares or computes with it (`__format__`, `__mul__`)."""
    return sorted(m for m in methods if m.startswith("__") and m.endswith("__") and m not in _AT_LAUNCH)


#: special methods that run where the host makes the tiling data, not in the kernel
_AT_LAUNCH = frozenset({"__init__", "__post_init__", "__new__", "__init_subclass__", "__set_name__"})


def _small_statements(node: cst.ClassDef) -> list[cst.BaseSmallStatement]:
    """The simple statements of a class body, on lines of their own or on the `class` line
    (`class TD: k: int`)."""
    if isinstance(node.body, cst.SimpleStatementSuite):
        return list(node.body.body)
    return [line for s in node.body.body if isinstance(s, cst.SimpleStatementLine) for line in s.body]


def _dataclass(decorator: cst.Decorator) -> bool:
    """`@dataclass`, `@dataclasses.dataclass` or either called (`@dataclass(frozen=True)`)."""
    d = decorator.decorator
    d = d.func if isinstance(d, cst.Call) else d
    return (isinstance(d, cst.Name) and d.value == "dataclass") or \
        (isinstance(d, cst.Attribute) and d.attr.value == "dataclass")


def _sealed(file, node: cst.ClassDef, lines: list) -> bool:
    """Can nothing but the launch set the class's fields? It has no base class or metaclass (an
    inherited `__post_init__`), no decorator but the dataclass one, a body of annotated fields of
    the scalar and array types alone (no method, no `__post_init__: ClassVar = f`, no `int =
    float`), the module does not bind the type names it uses (`int = float`), and no code of the
    file does more with the class than call it, annotate with it or alias it (`TD.__init__ = f`,
    `setattr(TD, ...)`)."""
    if node.bases or node.keywords or not all(_dataclass(d) for d in node.decorators):
        return False
    if any(isinstance(s, cst.BaseCompoundStatement) for s in node.body.body) \
            or not all(_field_line(file, line) for line in lines):
        return False
    if any(file.meaning(name) is not None for name in SCALAR_TYPES):
        return False
    touched = file.caches.classes_touched
    if node.name.value not in touched:
        touched[node.name.value] = _touched(file, node.name.value)
    return not touched[node.name.value]


def _field_line(file, line: cst.BaseSmallStatement) -> bool:
    """A docstring, `pass`, or a field annotated with a scalar type or an array of one."""
    if isinstance(line, cst.Pass) or isinstance(line, cst.Expr) and isinstance(
            line.value, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    if not isinstance(line, cst.AnnAssign) or not isinstance(line.target, cst.Name) \
            or line.target.value.startswith("__"):
        return False
    return _data_annotation(file, line.annotation.annotation)


def _touched(file, name: str) -> bool:
    """Does any code of the file use class `name` (or a module-level alias of it) other than by
    calling it, annotating with it, testing an instance against it or aliasing it? Read from
    Python's tree of every statement, functions kept as text included."""
    statements = file.source.python_statements()
    names = {name}
    while True:  # the aliases: `ScaleTiling = ScaleTilingV2`, `B = A = TD`
        more = {t.id for s in statements if isinstance(s, ast.Assign) and isinstance(s.value, ast.Name)
                and s.value.id in names for t in s.targets if isinstance(t, ast.Name)} - names
        if not more:
            break
        names |= more
    allowed: set[int] = set()
    for s in statements:
        for n in ast.walk(s):
            if isinstance(n, ast.Call):
                allowed.add(id(n.func))
                if isinstance(n.func, ast.Name) and n.func.id in ("isinstance", "issubclass") and len(n.args) == 2:
                    allowed.add(id(n.args[1]))
            elif isinstance(n, ast.arg) and n.annotation is not None:
                allowed.update(id(a) for a in ast.walk(n.annotation))
            elif isinstance(n, (ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef)):
                ann = n.annotation if isinstance(n, ast.AnnAssign) else n.returns
                if ann is not None:
                    allowed.update(id(a) for a in ast.walk(ann))
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Name) and s.value.id in names \
                and all(isinstance(t, ast.Name) for t in s.targets):
            allowed.update(id(n) for n in (s.value, *s.targets))  # an alias
    return any(isinstance(n, ast.Name) and n.id in names and id(n) not in allowed
               for s in statements for n in ast.walk(s))


def _literal_of(default: cst.BaseExpression | None, kind: str) -> bool:
    """Is a field's default absent, or a literal of the type it is declared and one of its
    values (`3`, `-1` for `int`; `True`, `0` for `bool`)? A name, a call (`field(default=1.5)`),
    a number of another kind or past the type's values (`10 ** 20`) may hold anything."""
    if default is None or kind == "float":
        return True
    sign = 1
    if isinstance(default, cst.UnaryOperation) and isinstance(default.operator, cst.Minus):
        default, sign = default.expression, -1
    bounds = scalar_int_values(kind)
    if isinstance(default, cst.Integer) and bounds is not None:
        return bounds[0] <= sign * int(literal_value(default)) <= bounds[1]
    return kind == "bool" and isinstance(default, cst.Name) and default.value in ("True", "False")
