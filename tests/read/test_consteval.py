"""The safe constant evaluator: folds what is constant, refuses the rest (never `eval`)."""

import libcst as cst
import pytest

from pto_transpile.read import modulenames
from pto_transpile.read.consteval import ConstEvaluator, NotConstant, PlSymbol
from pto_transpile.read.plnames import PlNames


def evaluator(module: cst.Module) -> ConstEvaluator:
    """The evaluator over what the module's names mean once it has run."""
    pl = PlNames.from_module(module)
    names = modulenames.evaluate(module, pl.path, module.code)
    return ConstEvaluator(names.meanings, pl.path)

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
EV = evaluator(MODULE)


@pytest.mark.parametrize("expr, value", [
    ("TILE", 64), ("HALF", 32), ("IDS", [0, 1]), ("SHAPE", (64, 32)), ("N", 6), ("BIG", 95),
    ("TILE * 2 + 1 if TILE > 8 else 0", 129), ("not (TILE < 0) and HALF", 32), ("IDS[1]", 1),
    ("1_000", 1000), ("0b101 | 0o10", 13), ("-TILE % 7", 6), ("1 < 2 < 3", True), ("'a' 'b'", "ab"),
    ("pl.DT_FP32", PlSymbol(("DT_FP32",))), ("pl.MemorySpace.Vec", PlSymbol(("MemorySpace", "Vec"))),
    ("TWICE", 2),  # the last binding: what the name holds once the module has run
])
def test_folds(expr, value):
    assert EV.eval(cst.parse_expression(expr)) == value


@pytest.mark.parametrize("expr", [
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


@pytest.mark.parametrize("expr, words", [
    ("[12, 13] * 10**8", "sequence of 200000000 items"),
    ("10**8 * 'ab'", "sequence of 200000000 items"),
    ("((10**4096)**4096)**4096", "integer of about"),
    ("(2**4000) ** 20", "integer of about 80020 bits"),
    (" * ".join(["10**4000"] * 5), r"integer of about 664\d\d bits"),
    ("1 << 10**9", "integer of about"),
    ("-" * 200 + "1", "nested more than 150 deep"),
])
def test_refuses_huge_or_deep_work_before_doing_it(expr, words):
    with pytest.raises(NotConstant, match=words):
        EV.eval(cst.parse_expression(expr))


def test_long_chains_of_constants_fold_in_order_without_recursion():
    """Each name is folded once, when the module binds it: a chain of 400 names is 400 steps."""
    chain = "".join(f"C{i} = C{i - 1} + 1\n" if i else "C0 = 0\n" for i in range(400))
    ev = evaluator(cst.parse_module(chain))
    assert ev.eval(cst.parse_expression("C399")) == 399


def test_an_unknown_name_down_a_chain_gives_the_first_cause_once():
    chain = "from sizes import size\nC0 = size()\n" + "".join(f"C{i} = C{i - 1} + 1\n" for i in range(1, 50))
    with pytest.raises(NotConstant) as err:
        evaluator(cst.parse_module(chain)).eval(cst.parse_expression("C49"))
    assert err.value.cause == "function calls are not compile-time constants"
    assert err.value.reason.count("compile-time constant") == 2  # `C49` and the cause, not the whole chain


def test_folds_large_but_sane_results():
    assert EV.eval(cst.parse_expression("[0, 1] * 1000")) == [0, 1] * 1000
    assert EV.eval(cst.parse_expression("(10**4096) * 10")) == 10**4097
