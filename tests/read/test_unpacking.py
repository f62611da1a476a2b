"""`divmod(n, d)` read as its two operators: the words a message quotes keep the grouping
the call gives its operands."""

import libcst as cst
import pytest

from pto_transpile.read.printing import code_of
from pto_transpile.read.unpacking import divmod_operations


@pytest.mark.parametrize("call, quoted", [
    ("divmod(t - 1, 2)", ("(t - 1) // 2", "(t - 1) % 2")),
    ("divmod(a, b + c)", ("a // (b + c)", "a % (b + c)")),
    ("divmod(x if f else y, 2)", ("(x if f else y) // 2", "(x if f else y) % 2")),
    ("divmod(not f, 2)", ("(not f) // 2", "(not f) % 2")),
    ("divmod(-a, n)", ("-a // n", "-a % n")),  # `-` binds more tightly already
    ("divmod((a + b), 3)", ("(a + b) // 3", "(a + b) % 3")),  # its own parentheses, once
    ("divmod(x[1], n.m)", ("x[1] // n.m", "x[1] % n.m")),
])
def test_divmod_operands_keep_their_grouping(call, quoted):
    operations = divmod_operations(cst.parse_expression(call))
    assert tuple(code_of(op) for op in operations) == quoted
    # the value is Python's: each quoted form computes what the call does
    env = {"t": 6, "a": 7, "b": 2, "c": 3, "x": [0, 9], "f": False, "y": 5, "n": type("N", (), {"m": 4})}
    env["n"] = 4 if "n.m" not in call else env["n"]
    assert tuple(eval(q, {}, env) for q in quoted) == eval(call, {}, env)
