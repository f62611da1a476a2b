"""A function of two residues of the loop variable (`(ki % 7) * (ki % 7) % 7`, `(ki & 15) << (ki %
3)`) is periodic with the lcm of their periods, which those residues joined: it was refused as a
product of "two values that vary", neither affine nor periodic (probe h185), whose help asked for
the residues the kernel already took. A defect at one phase of such a value is still found at the
count that shows it."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import error_messages
from pto_transpile import transpile

#: the vector stage of tests/soundness/kernels/dynamic_rows.py scaling at some phases
SCALED = ("    pl.relu(y, c_vec)\n", "    pl.relu(y, c_vec)\n    if TEST:\n        pl.muls(y, y, 2.0)\n")


@pytest.mark.parametrize("test", ["(ki % 7) * (ki % 7) % 7 == 2", "(ki & 15) << (ki % 3) == 8",
                                  "(ki % 4) * (-ki % 4) == 3", "(ki % 6) // (ki % 4 + 1) == 1"])
def test_a_function_of_residues_is_proven(test):
    text = kernel("dynamic_rows.py").replace(*SCALED).replace("TEST", test)
    for preload in (1, 2):
        result = transpile(text, path="k.py", preload=preload)
        assert result.ok, (test, preload, error_messages(result))


@pytest.mark.parametrize(("test", "count"), [("(ki % 7) * (ki % 5) == 24", 35), ("(ki % 4) * (-ki % 4) == 3", 2),
                                             ("(ki % 3) ** (ki % 4) == 8", 12), ("(ki & 15) == 13", 14),
                                             ("(ki & 12) == 12", 13), ("(ki & 3) == (ki & 1) + 2", 3)])
def test_a_defect_at_one_phase_of_a_function_of_residues_is_found(test, count):
    """Masks of the loop variable (`test_bit_mask_residue.py`) among them."""
    # residue_defect.py's `mark` sets the scale in the last iteration where the test holds: the
    # pipelined kernel scales the task before it too, wrong exactly at those counts
    text = kernel("residue_defect.py").replace("ki % 3 == 2", test)
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "stage `scale_store`" in message and f"(shown with `n` = {count})" in message, message


def test_a_residue_times_the_loop_variable_is_still_refused():
    text = kernel("dynamic_rows.py").replace(*SCALED).replace("TEST", "(ki % 2) * ki == 6")
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "neither affine nor periodic" in errors[0], errors


def test_residues_that_cancel_as_their_variables_do_still_vary():
    # `(ki % 4) + (-ki % 4)` is 0, 4, 4, 4, 0, ...: a form of no variable would call it a constant
    import operator

    from pto_transpile.soundness.uniform import Uniform
    from pto_transpile.soundness.values import Sym

    ki = ("loop", 1)
    total = Uniform().binop(operator.add, Sym(1, ((ki, 1),), True), Sym(3, ((ki, -1),), True), 4, lambda: "")
    assert total.residue and [v for v, _ in total.form] == [ki]
    same = Uniform().binop(operator.sub, Sym(1, ((ki, 1),), True), Sym(1, ((ki, 1),), True), 0, lambda: "")
    assert same.residue and [v for v, _ in same.form] == [ki]
