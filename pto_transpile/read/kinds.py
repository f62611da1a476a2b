"""Static variable kinds: what a name in the kernel holds (tensor, tile group, tile, scalar, ...).

The original asks the real parser; we infer from annotations, assignments and the `pl`
calls that produce values. Where the kind cannot be decided it is UNKNOWN, and a rule says
so if that name's kind matters (a stage argument), rather than guessing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import libcst as cst

from pto_api.memory import scalar_int_values
from pto_transpile.read.consteval import MATH
from pto_transpile.read.model import (
    GROUP,
    HANDLE_KINDS,
    SCALAR,
    STRUCT,
    STRUCT_ARRAY,
    TENSOR,
    TILE,
    TUPLE,
    UNKNOWN,
)
from pto_transpile.read.walk import iter_nodes

#: Kind of the value a `pl.<path>(...)` call returns.
PL_CALL_KINDS: dict[tuple[str, ...], str] = {
    ("make_tile_group",): GROUP,
    ("make_tile",): TILE,
    ("make_tensor",): TENSOR,
    ("struct",): STRUCT,
    ("struct_array",): STRUCT_ARRAY,
    ("make_tuple",): TUPLE,
    ("get_block_idx",): SCALAR,
    ("get_block_num",): SCALAR,
    ("get_subblock_idx",): SCALAR,
    ("get_subblock_num",): SCALAR,
    ("getval",): SCALAR,
    ("const",): SCALAR,
    ("TileType",): "type",
    ("range",): UNKNOWN,
}
#: `pl` calls whose result is a number made of their arguments (the scalar `pl.min`/`pl.max`).
PL_NUMERIC = frozenset({("min",), ("max",)})
SLOT_ACCESSORS = ("next", "current", "previous")
#: Builtins whose result is a number made of their arguments.
NUMERIC_BUILTINS = frozenset({"min", "max", "abs", "int", "float", "round"})
SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool"})


def annotation_kind(annotation: cst.Annotation | None, pl_path: Callable) -> str:
    if annotation is None:
        return UNKNOWN
    node = annotation.annotation
    base = node.value if isinstance(node, cst.Subscript) else node
    path = pl_path(base)
    if path in (("Tensor",), ("Ptr",)):
        return TENSOR
    if path and path[-1].startswith("DT_"):
        return SCALAR
    if isinstance(base, cst.Name) and base.value in SCALAR_ANNOTATIONS:
        return SCALAR
    return UNKNOWN


def slot_access(expr: cst.BaseExpression, groups: Mapping[str, object]) -> tuple[str, str] | None:
    """(group, accessor) when `expr` is `g.next()`, `g.current()`, `g.previous()` or `g[i]`."""
    if type(expr) is cst.Call and type(expr.func) is cst.Attribute:
        owner = expr.func.value
        if isinstance(owner, cst.Name) and owner.value in groups and expr.func.attr.value in SLOT_ACCESSORS:
            return owner.value, expr.func.attr.value
    if type(expr) is cst.Subscript and type(expr.value) is cst.Name and expr.value.value in groups:
        return expr.value.value, "index"
    return None


#: Comparisons Python never hands to the operands' own methods for a result: always a bool.
_IDENTITY_TESTS = (cst.In, cst.NotIn, cst.Is, cst.IsNot)


def infer(expr: cst.BaseExpression, kinds: Mapping[str, str], groups: Mapping[str, object], pl_path: Callable) -> str:
    """Kind of the value of `expr`, given the kinds bound so far."""
    if type(expr) in (cst.Integer, cst.Float):
        return SCALAR
    if type(expr) is cst.Name:
        if expr.value in kinds:
            return kinds[expr.value]
        return "const"
    if slot_access(expr, groups) is not None:
        return TILE
    if isinstance(expr, cst.Call):
        path = pl_path(expr.func)
        if path in PL_NUMERIC and expr.args and not any(a.keyword is not None or a.star for a in expr.args):
            return _numeric([a.value for a in expr.args], kinds, groups, pl_path)
        if path is not None:
            return PL_CALL_KINDS.get(path, UNKNOWN)
        made = {"struct": STRUCT, "struct_array": STRUCT_ARRAY, "make_tile_group": GROUP}
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in made:
            return made[expr.func.attr.value]
        if isinstance(expr.func, cst.Name) and expr.func.value in NUMERIC_BUILTINS and expr.func.value not in kinds \
                and expr.args and not any(a.keyword is not None or a.star for a in expr.args):
            return _numeric([a.value for a in expr.args], kinds, groups, pl_path)
        if isinstance(expr.func, cst.Name) and expr.func.value in ("int", "float", "bool") \
                and expr.func.value not in kinds and not expr.args:
            return SCALAR  # `int()`, `float()`, `bool()`: 0, 0.0, False
        func = expr.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "math" \
                and "math" not in kinds and func.attr.value in MATH and expr.args \
                and not any(a.keyword is not None or a.star for a in expr.args):
            return _numeric([a.value for a in expr.args], kinds, groups, pl_path)  # `math.exp(i % 2)`: a number
        return UNKNOWN
    if isinstance(expr, cst.IfExp):
        return _numeric([expr.test, expr.body, expr.orelse], kinds, groups, pl_path)
    if isinstance(expr, cst.Comparison) and all(type(c.operator) in _IDENTITY_TESTS for c in expr.comparisons):
        return SCALAR  # `mode in (1, 3)`, `x is None`: a bool whatever the operands
    if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation)):
        parts = [expr.left, expr.right] if isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation)) else (
            [expr.expression] if isinstance(expr, cst.UnaryOperation)
            else [expr.left] + [c.comparator for c in expr.comparisons]
        )
        sub = [infer(p, kinds, groups, pl_path) for p in parts]
        if any(k in HANDLE_KINDS or k == UNKNOWN for k in sub):
            return UNKNOWN
        return SCALAR
    if isinstance(expr, cst.Attribute):
        base = expr.value
        # `s.field` of a struct, `t.shape` of a tensor: scalars; `pl.X` constants.
        if pl_path(expr) is not None:
            return "const"
        if isinstance(base, cst.Name) and kinds.get(base.value) in (STRUCT, SCALAR):
            return SCALAR
        if isinstance(base, cst.Name) and infer(base, kinds, groups, pl_path) == "const":
            return "const"  # a field of the tiling data or of a module-level object
        return UNKNOWN
    if isinstance(expr, (cst.Tuple, cst.List)):
        # A display of handles (`(gmax_0, gmax_1, gmax_2)` of pl.make_tile results) is a
        # handle itself: it passes through unchanged, only the counter indexing it travels.
        sub = [infer(e.value, kinds, groups, pl_path) for e in expr.elements if not isinstance(e, cst.StarredElement)]
        if sub and len(sub) == len(expr.elements) and all(k in HANDLE_KINDS for k in sub):
            return TUPLE
        return UNKNOWN
    if isinstance(expr, cst.Subscript):
        base = expr.value
        inner = infer(base, kinds, groups, pl_path)
        if isinstance(base, cst.Attribute) and base.attr.value == "shape":
            return SCALAR
        if inner == STRUCT_ARRAY:
            return STRUCT
        if inner == TILE and all(isinstance(e.slice, cst.Index) for e in expr.slice):
            return SCALAR  # one element of a tile
        if inner == TENSOR:
            # `t[i]` / `t[i, j]` reads one element of GM (a scalar); slices view the tensor
            return SCALAR if all(isinstance(e.slice, cst.Index) for e in expr.slice) else TENSOR
        if inner == "const":
            # `GAINS[j % 2]`: an item of a constant picked by a value of the iteration is one too
            parts = [p for e in expr.slice for p in _slice_parts(e.slice) if p is not None]
            found = {infer(p, kinds, groups, pl_path) for p in parts} - {"const"}
            if found and any(isinstance(e.slice, cst.Slice) for e in expr.slice):
                return UNKNOWN  # a part of it chosen by the iteration: a sequence, not a number
            return "const" if not found else UNKNOWN if found & ({UNKNOWN} | HANDLE_KINDS) else SCALAR
        if inner == SCALAR and all(isinstance(e.slice, cst.Index) for e in expr.slice):
            # `PICK[j % 2][0]`: an item of an item of a constant (a number or a tuple of them,
            # never a handle: a module constant holds none); it was unknown, and as the index of
            # a tile pick it stayed behind while the stage ran ahead (probe h101)
            return _numeric([p for e in expr.slice for p in _slice_parts(e.slice)], kinds, groups, pl_path)
        return UNKNOWN
    return UNKNOWN


def _slice_parts(part: cst.BaseSlice) -> tuple:
    """The expressions of one subscript part: its index, or a slice's bounds and step."""
    if isinstance(part, cst.Index):
        return (part.value,)
    return (part.lower, part.upper, part.step) if isinstance(part, cst.Slice) else ()


def _numeric(parts, kinds, groups, pl_path) -> str:
    """A number computed from `parts`: a scalar, unless one of them is a handle or unknown."""
    sub = [infer(p, kinds, groups, pl_path) for p in parts]
    return UNKNOWN if any(k in HANDLE_KINDS or k == UNKNOWN for k in sub) else SCALAR


def names_in(expr: cst.CSTNode) -> list[str]:
    """Variable names an expression reads (attribute names and call keywords excluded)."""
    skip = set()
    found: list[str] = []
    for n in iter_nodes(expr):
        if type(n) is cst.Attribute:
            skip.add(n.attr)
        elif type(n) is cst.Arg and n.keyword is not None:
            skip.add(n.keyword)
        elif isinstance(n, cst.Name) and n not in skip:
            found.append(n.value)
    return found


def declared_int_type(param: cst.Param, pl_path) -> str | None:
    """The integer type a scalar parameter is declared with (`int`, `bool`, or a `pl` integer
    dtype's name such as `DT_UINT8`: `scalar_int_values` has its values), or None."""
    ann = param.annotation.annotation if param.annotation is not None else None
    if isinstance(ann, cst.Name):
        return ann.value if scalar_int_values(ann.value) is not None else None
    path = pl_path(ann) if ann is not None else None
    return path[-1] if path and scalar_int_values(path[-1]) is not None else None
