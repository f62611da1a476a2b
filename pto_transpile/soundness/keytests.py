"""Tests a tiling-key instance decides where the code stands, before any run.

The JIT compiles one kernel per tiling-key instance, with the key's fields as compile-time
names: `if ApplyRelu == 1:` holds in every iteration of instance 1 and in none of instance 0.
The loop walks that say what an iteration binds before it reads it (`loops.read_first`,
`fields_bound_first`) follow the branch such a test takes, where otherwise a binding under a
branch counts as a read only (probe h105: `if ApplyRelu == 1: st.g = ...` at the top of the
body was taken for a field carried from one iteration to the next).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

#: a comparison operator's function (`in` and `is` are left undecided)
_COMPARE = {cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt,
            cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge}

Decide = Callable[[cst.BaseExpression], "bool | None"]


def undecided(_test: cst.BaseExpression) -> bool | None:
    return None


def key_decider(key: dict[str, int], constant: Callable[[cst.BaseExpression], object],
                rebound: Callable[[str], bool]) -> Decide:
    """For the instance `key` (field -> value): a test's outcome where it compares key fields with
    constants (`KEY == 1`, `KEY != 0 and OTHER < 2`, `not KEY`), else None. `constant` gives an
    expression's static value (None: not static); a field the kernel binds again (`rebound`)
    is not the key's."""
    return KeyTests(key, constant, rebound).decide


@dataclass(frozen=True)
class KeyTests:
    """`key_decider`'s walk (methods, not closures calling themselves: those would be cycles the
    collector alone frees, holding the interpreter that made them)."""

    key: dict[str, int]
    constant: Callable[[cst.BaseExpression], object]
    rebound: Callable[[str], bool]

    def value(self, expr: cst.BaseExpression) -> int | None:
        if type(expr) is cst.Name and expr.value in self.key and not self.rebound(expr.value):
            return self.key[expr.value]
        if any(type(n) is cst.Name and (n.value in self.key or self.rebound(n.value)) for n in _names(expr)):
            # (a key field inside an expression this reads no further; a name the kernel binds,
            # which is not the module's constant there: probe h110, `Mode == DECAY` of a local `DECAY`)
            return None
        found = self.constant(expr)
        return found if isinstance(found, int) else None  # (a bool is an int)

    def decide(self, test: cst.BaseExpression) -> bool | None:
        if type(test) is cst.Name:
            v = self.value(test)
            return None if v is None or test.value not in self.key else bool(v)
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            inner = self.decide(test.expression)
            return None if inner is None else not inner
        if type(test) is cst.BooleanOperation:
            left, right = self.decide(test.left), self.decide(test.right)
            if type(test.operator) is cst.And:
                return False if False in (left, right) else None if None in (left, right) else True
            return True if True in (left, right) else None if None in (left, right) else False
        if type(test) is cst.Comparison and len(test.comparisons) == 1:
            compare = _COMPARE.get(type(test.comparisons[0].operator))
            if compare is None or not any(type(n) is cst.Name and n.value in self.key for n in _names(test)):
                return None
            a, b = self.value(test.left), self.value(test.comparisons[0].comparator)
            if a is None or b is None:
                return None
            return bool(compare(a, b))
        return None


def _names(expr: cst.CSTNode):
    stack = [expr]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)
