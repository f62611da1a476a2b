"""Probe h174: a test of a scalar parameter on a residue of a huge modulus (`d % 10 ** 30 ==
10 ** 29`) made the check search the values giving it one by one, up to the modulus: it never
returned. The values nearest to a piece's anchor are solved as a congruence now: the test is
decided at once, whether no int32 value reaches it (proven) or one does (refused)."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "h174_huge_residue.py")


def test_a_residue_no_int32_value_gives_is_decided_at_once():
    assert transpile(KERNEL, path="k.py", preload=1).ok


def test_a_residue_of_a_huge_modulus_an_int32_value_gives_is_run_at_that_value():
    # 100000007 is an int32; from it on the stage stores into the next task's rows of `a`
    text = edited(KERNEL, [("if d % (10 ** 30) == 10 ** 29:", "if d % (10 ** 9) == 10 ** 8 + 7:")])
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "(shown with d=100000007)" in errors[0], errors


def test_a_builtin_given_pl_constants_is_not_given_a_function():
    # (`len([pl.DT_FP32])`, `int(pl.TilePad.zero)` were refused: "`len` is given a function")
    text = edited(KERNEL, [("    c_vec = c_vec_db.next()\n    y = y_db.next()\n",
                            "    c_vec = c_vec_db.next()\n    y = y_db.next()\n"
                            "    kinds = len([pl.DT_FP32, pl.TilePad.zero, pl.NZ])\n"),
                           ("if d % (10 ** 30) == 10 ** 29:", "if kinds != 3:")])
    assert transpile(text, path="k.py", preload=1).ok
