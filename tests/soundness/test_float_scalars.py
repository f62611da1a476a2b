"""Floating-point scalar parameters and tiling-data fields are data, not sampled integers.

Integers sampled for a `pl.DT_FP32` parameter never fall in `0.25 < d < 0.75` nor equal 0.5,
so a racy store under such a test was accepted (the emulator reports the race at d = 0.5).
A float is now a value named by its parameter: a test on it is followed both ways, and the
race is found; using it as an operand (`pl.muls(y, x, d)`) is as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_transpile import transpile

KERNEL = (Path(__file__).parent / "kernels" / "branch_on_param.py").read_text()
EXAMPLE = Path(__file__).parents[2] / "examples" / "tiled_scale.py"
FLOAT = ("    d: pl.DT_INT32,\n", "    d: pl.DT_FP32,\n")


def _errors(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("test", ["d > 0.25 and d < 0.75", "d == 0.5", "d * 4 == 2.0"])
def test_a_racy_store_under_a_test_on_a_float_parameter_is_refused(test):
    text = KERNEL.replace(*FLOAT).replace("    if d == 7:\n", f"    if {test}:\n")
    assert f"if {test}:" in text and "pl.DT_FP32,\n" in text
    (message,) = _errors(transpile(text, path="float.py"))
    assert "`pl.store` on MTE3 of AIV0 writes `a[32:48, 0:32]`" in message
    assert "shown with d=" not in message  # no sampled value stands for a float


def test_a_float_parameter_used_as_an_operand_is_accepted():
    racy = "    if d == 7:\n        pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])\n"
    text = KERNEL.replace(*FLOAT).replace(racy, "    pl.muls(y, y, d)\n")
    assert "pl.muls(y, y, d)" in text
    assert _errors(transpile(text, path="float_ok.py")) == []


def test_a_racy_store_under_a_test_on_a_float_tiling_field_is_refused():
    store = "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
    text = EXAMPLE.read_text()
    assert store in text
    # at scale 0.5 both vector cores store their halves on the same rows
    text = text.replace(store, store + "    if scale == 0.5:\n        pl.store(out, res, [i * BLOCK, 0])\n")
    messages = _errors(transpile(text, path="tiling_float.py"))
    assert any("while the same op on AIV1 writes `out[0:16, 0:32]` if a condition the check cannot decide" in m
               for m in messages), messages
