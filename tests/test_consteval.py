"""The safe constant evaluator: folds what is constant, refuses the rest (never `eval`)."""

import libcst as cst
import pytest

from pto_transpile.consteval import ConstEvaluator, NotConstant, PlSymbol
from pto_transpile.plnames import PlNames
from pto_transpile.reader import _module_constants

MODULE = cst.parse_module("""
import os
import pypto_pro.language as pl
TILE = 0x40
HALF = TILE // 2
IDS = [0, 1]
SHAPE = (TILE, HALF)
N = len(IDS) * 3
BIG = max(TILE, 100) - abs(-5)
TWICE = 1
TWICE = 2
DEVICE = int(os.environ.get("X", 0))
A = B
B = A
""")
PL = PlNames.from_module(MODULE)
EV = ConstEvaluator(_module_constants(MODULE), PL.path)


@pytest.mark.parametrize("expr, value", [
    ("TILE", 64), ("HALF", 32), ("IDS", [0, 1]), ("SHAPE", (64, 32)), ("N", 6), ("BIG", 95),
    ("TILE * 2 + 1 if TILE > 8 else 0", 129), ("not (TILE < 0) and HALF", 32), ("IDS[1]", 1),
    ("1_000", 1000), ("0b101 | 0o10", 13), ("-TILE % 7", 6), ("1 < 2 < 3", True), ("'a' 'b'", "ab"),
    ("pl.DT_FP32", PlSymbol(("DT_FP32",))), ("pl.MemorySpace.Vec", PlSymbol(("MemorySpace", "Vec"))),
])
def test_folds(expr, value):
    assert EV.eval(cst.parse_expression(expr)) == value


@pytest.mark.parametrize("expr", [
    "TWICE",  # bound twice at module level
    "DEVICE",  # a call of something that is not a pure builtin
    "A",  # a cycle
    "undefined",
    "os.environ",  # attribute of a non-pl module
    "2 ** 100000",  # too large to fold
    "1 / 0",
    "[i for i in IDS]",
    "IDS + pl.DT_FP32",
])
def test_refuses(expr):
    with pytest.raises(NotConstant):
        EV.eval(cst.parse_expression(expr))
