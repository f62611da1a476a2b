"""What a stage receives from `pow`, `sum` or a `math` function of numbers of the run (`pow(1.5, i %
2)`, `math.sqrt(i + 1)`, `math.exp(n_blocks)`) is compared between the serial and the pipelined
kernel: the check computes it, or names it as the run-time value it is. It was a value the check
could not compute, never compared, so a ring that changed it went unseen (probe h113: a float
carried in a field of integers was accepted once the field's type was guessed wrong). The tests
make that ring by hand: the generated kernel with the field initialised with an int."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from helpers import assert_proven_and_run, edited, kernel_text
from pto_transpile import transpile
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.soundness.check import check_kernel

KERNELS = Path(__file__).parent / "kernels"
BASE = KERNELS / "h113_float_arg_typed_int_by_index_use.py"
BINDING = "        gain: float = pow(1.5, i % 2)"
#: a residue (computed), a loop variable and a trip count (named as run-time values)
VALUES = ["pow(1.5, i % 2)", "math.exp(i % 2)", "sum((1.5, i % 2))", "math.sqrt(i + 1)", "math.sqrt(n_blocks)"]


def _kernel(value: str) -> str:
    return "import math\n" + edited(kernel_text(BASE), [(BINDING, f"        gain: pl.DT_FP32 = {value}"),
                                                      ("SCALE_OF_GAIN[gain]", "gain * 0.5")])


def _function(code: str, name: str = "kern") -> cst.FunctionDef:
    return next(s for s in cst.parse_module(code).body if isinstance(s, cst.FunctionDef) and s.name.value == name)


@pytest.mark.parametrize("value", VALUES)
def test_a_float_the_ring_carries_as_an_integer_is_seen(value):
    text = _kernel(value)
    result = transpile(text, path="k.py")
    assert result.ok, [d.message for d in result.diagnostics]
    generated = cst.Module([]).code_for_node(_function(result.code))
    assert "gain=0.0" in generated
    file = read(SourceFile.parse(text, "k.py"))
    kernel = next(k for k in file.kernels if k.name == "kern")
    assert check_kernel(file, kernel, _function(generated)) == []
    problems = check_kernel(file, kernel, cst.parse_statement(generated.replace("gain=0.0", "gain=0")))
    assert problems and "receives `gain`" in problems[0].detail, [p.detail for p in problems]


@pytest.mark.parametrize("value", ["math.sqrt(i + 1)", "pow(1.5, i % 2)"])
def test_the_kernel_runs_as_the_serial_one(tmp_path, value):
    path = tmp_path / "kernel.py"
    path.write_text(_kernel(value))
    assert_proven_and_run(path, "kern", shapes={"a": (160, 32), "out": (160, 32)})
