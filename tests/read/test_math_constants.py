"""Module constants computed with Python's `math` (`WARM = math.ceil(LATENCY / 2)`) are folded, as
integer arithmetic is (probe h98: called "not static", and the `pl.range` the warning suggested
turned a valid hand pipeline into an error). Not where the file may replace a `math` function."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import kernel_text
from pto_transpile import transpile
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile

KERNEL = kernel_text(Path(__file__).parents[1] / "soundness" / "kernels" / "warm_math_ceil.py")


def _constants(text: str) -> dict:
    return read(SourceFile.parse(text, "k.py")).constants


@pytest.mark.parametrize("text, value", [
    ("import math\nW = math.ceil(7 / 2)\n", 4),
    ("import math as m\nW = m.floor(7 / 2) + m.gcd(12, 18)\n", 9),
    ("from math import ceil, isqrt\nW = ceil(3.5) * isqrt(17)\n", 16),
    ("import math\nW = math.lcm(4, 6) if math.sqrt(16) == 4.0 else 0\n", 12),
])
def test_a_math_constant_is_folded(text, value):
    assert _constants(text)["W"] == value


@pytest.mark.parametrize("text", [
    "import math\nmath.ceil = lambda x: 0\nW = math.ceil(7 / 2)\n",  # replaced first
    "import math\nW = math.ceil(7 / 2)\n\n\ndef f():\n    math.ceil = abs\n",  # a function may replace it
    "import math as m\nsetattr(m, 'ceil', abs)\nW = m.ceil(7 / 2)\n",
    "import math\nW = math.factorial(30)\n",  # not among the folded functions
    "import mathx as math\nW = math.ceil(7 / 2)\n",  # not Python's math
    "import math\nW = math.gcd(2 ** 100, 6)\n",  # past the size folded
])
def test_a_math_call_that_may_mean_something_else_is_not(text):
    assert "W" not in _constants(text)


def test_a_warm_up_counted_with_math_ceil_is_proven():
    assert [d for d in transpile(KERNEL, path="k.py").diagnostics if d.severity != "note"] == []


def test_one_set_short_is_found():
    text = KERNEL.replace("for _w in range(WARM):", "for _w in range(WARM - 1):", 1)  # one set short
    assert text != KERNEL
    assert any(d.code == "PTO068" for d in transpile(text, path="k.py").diagnostics), "one set short not found"
