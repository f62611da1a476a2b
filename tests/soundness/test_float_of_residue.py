"""A float computed from a residue of the loop variable takes one value per residue, like a test of
the residue choosing it; it is periodic, and the check follows it as the value it is (probe h96:
`pl.muls(y, y, 1.0 + ki % 2)` was refused, its help naming `% k`, which the kernel already used).
A float of the loop variable itself still grows with it and stays refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "float_of_residue.py")
SCALE = "    pl.muls(y, y, 1.0 + ki % 2)\n"
LOOP = "    for ki in pl.range(0, n):\n"


def test_a_float_of_a_residue_is_accepted_and_verified():
    result = transpile(KERNEL, path="k.py")
    assert error_messages(result) == []
    for n in (1, 4, 5):
        report = verify(KERNEL, result.code, "kernel", shapes={"a": (32 * n, 32), "out": (32 * n, 32)},
                        scalars={"n": n})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (n, report.rows)


def test_carried_to_a_delayed_stage_from_the_kernel_body():
    """Computed in the loop body and handed to the vector stage, which runs a beat later."""
    text = edited(KERNEL, [(SCALE, "    pl.muls(y, y, sc)\n"),
                           ("def scale_store(ki, n,", "def scale_store(ki, sc, n,"),
                           (LOOP, LOOP + "        sc = 0.5 * (ki % 3)\n"),
                           ("scale_store(ki, n, sub_id,", "scale_store(ki, sc, n, sub_id,")])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    report = verify(text, result.code, "kernel", shapes={"a": (160, 32), "out": (160, 32)}, scalars={"n": 5})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows


@pytest.mark.parametrize("scale", ["1.0 * ki", "(1.0 + ki % 2) * ki", "ki / 2"])
def test_a_float_of_the_loop_variable_itself_is_refused(scale):
    (message,) = error_messages(transpile(edited(KERNEL, [(SCALE, f"    pl.muls(y, y, {scale})\n")]), path="k.py"))
    assert "computes a non-integer from the loop variable" in message, message
