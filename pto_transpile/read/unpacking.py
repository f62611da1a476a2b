"""What each name of a tuple target is bound to: `a, b = x, y`, and `q, r = divmod(n, d)`,
whose names take `n // d` and `n % d` (the builtin's definition), so that every analysis
reads them as it reads the two operators."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst


def divmod_operations(call: cst.Call) -> tuple[cst.BinaryOperation, cst.BinaryOperation] | None:
    """`(n // d, n % d)` of a call `divmod(n, d)` of two positional arguments (new nodes over the
    call's own argument nodes), or None for any other argument list."""
    if len(call.args) != 2 or any(a.keyword is not None or a.star for a in call.args):
        return None
    n, d = (_grouped(a.value) for a in call.args)
    return (cst.BinaryOperation(left=n, operator=cst.FloorDivide(), right=d),
            cst.BinaryOperation(left=n, operator=cst.Modulo(), right=d))


#: Operands that bind more loosely than `//` and `%` (or as loosely, on the right).
_LOOSE = (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp, cst.Lambda, cst.NamedExpr)


def _grouped(operand: cst.BaseExpression) -> cst.BaseExpression:
    """`operand` as an operand of `//` or `%` prints: parenthesised when it binds more loosely
    and has no parentheses of its own (`divmod(t - 1, 2)` is `(t - 1) // 2`, not `t - 1 // 2`).
    The value is the same; only the words a message quotes change."""
    loose = isinstance(operand, _LOOSE) or type(operand) is cst.UnaryOperation and type(operand.operator) is cst.Not
    if loose and not operand.lpar:
        return operand.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return operand


def unpacked(target: cst.Tuple | cst.List, value: cst.BaseExpression,
             is_builtin: Callable[[str], bool]) -> list[cst.BaseExpression] | None:
    """The value each element of `target` takes from `value`: the elements of a tuple or list
    of the same length (no starred element), or the two results of the builtin `divmod`
    (`is_builtin("divmod")`: the name is not rebound); None when they cannot be paired."""
    count = len(target.elements)
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == count and not any(
            isinstance(e, cst.StarredElement) for e in value.elements):
        return [e.value for e in value.elements]
    if count == 2 and isinstance(value, cst.Call) and isinstance(value.func, cst.Name) \
            and value.func.value == "divmod" and is_builtin("divmod"):
        operations = divmod_operations(value)
        return list(operations) if operations is not None else None
    return None
