"""The soundness interpreter folds constants with the constant folder's operators and limits:
what one computes the other computes, what one refuses as too large the other does too."""

import libcst as cst
import pytest

from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.soundness.interp import CannotModel, Config, Ctx, Interpreter

KERNEL = '''
import pypto_pro.language as pl


@pl.jit
def k(x: pl.Tensor[[16, 32], pl.DT_FP32]):
    pass
'''

EXPRESSIONS = ["2 ** 100", "3 ** 5000", "1 << 70", "1 << 70000", "[0] * 60000", "[0, 1] * 40000",
               "(10 ** 4000) * (10 ** 4000)", "7 // 2", "2 ** -2"]


def _interpreter() -> Interpreter:
    file = read(SourceFile.parse(KERNEL, "k.py"))
    return Interpreter(file, file.kernels[0].node, Config())


def _folded(text: str):
    return read(SourceFile.parse(KERNEL, "k.py")).evaluator.try_eval(cst.parse_expression(text), "refused")


def _followed(interp: Interpreter, text: str):
    try:
        return interp.eval(cst.parse_expression(text), Ctx(1, {}))
    except CannotModel:
        return "refused"


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_the_check_folds_what_the_constant_folder_folds(text):
    assert _followed(_interpreter(), text) == _folded(text)


def test_the_list_has_both_kinds():
    assert {_folded(t) == "refused" for t in EXPRESSIONS} == {True, False}
