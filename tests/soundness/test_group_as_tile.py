"""A tile group given to an op where it takes a tile (`pl.load(w_l1, w, [0, 0])` in the kernel
body, where the stage's ops are PTO086's): the op names no slot, so the check had no footprint for
it and proved the kernel, which the emulator refuses to run (probe ux1, in a stage)."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages
from pto_transpile import transpile

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()


def test_a_group_given_to_an_op_of_the_kernel_body_is_refused_naming_it():
    text = edited(TILED, [("        pl.load(w_slot, w, [0, 0])", "        pl.load(w_l1, w, [0, 0])")])
    errors = error_messages(transpile(text, path="k.py"))
    assert errors and "`pl.load` is given the tile group `w_l1` where it takes a tile" in errors[0], errors
    assert "`slot = w_l1.next()`" in errors[0]
