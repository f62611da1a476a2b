"""A float computed from a residue of the loop variable takes one value per residue, like a test of
the residue choosing it; it is periodic, and the check follows it as the value it is (probe h96:
`pl.muls(y, y, 1.0 + ki % 2)` was refused, its help naming `% k`, which the kernel already used).
A float of the loop variable itself is a value of its own for each iteration: an op's scalar takes
it, and a test or a place made from it is followed as one of a value read at run time."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL_DIR = Path(__file__).parent / "kernels"
KERNEL = kernel_text(KERNEL_DIR / "float_of_residue.py")
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
def test_a_float_of_the_loop_variable_itself_as_an_op_s_scalar_is_proven(scale):
    """A value of its own for each iteration, which an op's scalar only computes with (probe h103:
    refused as "a non-integer from the loop variable", which the design lets in as a value operand)."""
    text = edited(KERNEL, [(SCALE, f"    pl.muls(y, y, {scale})\n")])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    report = verify(text, result.code, "kernel", shapes={"a": (160, 32), "out": (160, 32)}, scalars={"n": 5})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows


def test_a_float_of_the_loop_variable_carried_to_a_delayed_stage_is_proven():
    text = edited(KERNEL, [(SCALE, "    pl.muls(y, y, sc)\n"),
                           ("def scale_store(ki, n,", "def scale_store(ki, sc, n,"),
                           (LOOP, LOOP + "        sc = ki * 0.5\n"),
                           ("scale_store(ki, n, sub_id,", "scale_store(ki, sc, n, sub_id,")])
    result = transpile(text, path="k.py", preload=2)
    assert error_messages(result) == []
    report = verify(text, result.code, "kernel", shapes={"a": (256, 32), "out": (256, 32)}, scalars={"n": 8})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows


def test_a_test_on_a_float_of_the_loop_variable_is_followed_both_ways():
    """residue_defect.py's `mark` sets the scale from the 81st iteration on (`ki * 0.5 > 40.0`),
    past every count the check runs: wrong for n > 81, found by following the test both ways."""
    text = edited((KERNEL_DIR / "residue_defect.py").read_text(encoding="utf-8"),
                  [("    if ki == n - 1 and ki % 3 == 2:\n", "    if ki * 0.5 > 40.0:\n")])
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "stage `scale_store` (task 0) on AIV0 receives `scale` as a value the check cannot compute" in message, \
        message


def test_a_place_computed_from_a_float_of_the_loop_variable_is_refused():
    text = edited(KERNEL, [(SCALE, SCALE + "    pl.store(out, y, [int(ki * 0.5) * TILE + sub_id * HALF, 0])\n")])
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and "`out`" in messages[0], messages
