"""Probe h161 (run-time values as symbols) found no hole; one valid kernel was refused with a hint
its author could not act on: a method of a number in a stage (`if d.bit_length() == 3:` of the
scalar parameter `d`) was "a call with values it may keep past the stage", although a number's
methods keep and change nothing. Now its value is not known, so a test of it is followed both
ways: a store it guards is proven where it is right either way, and refused where it races."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages
from pto_transpile import transpile

KERNEL = (Path(__file__).parent / "kernels" / "branch_on_param.py").read_text(encoding="utf-8")
TEST = "    if d == 7:\n        pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])\n"


def test_a_method_of_a_scalar_parameter_guarding_a_store_of_the_task_s_own_rows_is_proven():
    own = "    if d.bit_length() == 3:\n        pl.store(a, y, [ki * TILE + sub_id * HALF, 0])\n"
    assert error_messages(transpile(edited(KERNEL, [(TEST, own)]), path="k.py", preload=1)) == []


def test_a_method_of_a_scalar_parameter_guarding_a_store_of_the_next_task_s_rows_is_refused():
    # the race is there at d = 4 .. 7 alone: the method's value is followed both ways, never sampled
    text = edited(KERNEL, [(TEST, TEST.replace("d == 7", "d.bit_length() == 3"))])
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "nothing orders the two" in errors[0], errors
