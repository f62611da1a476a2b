"""A range of `2 ** 63` iterations or more is too long to follow, said so like any long loop
(probe h121: Python's `len` of such a range raises OverflowError, and the check crashed with an
internal error, PTO099); so is a vector function's loop of more iterations than its op budget,
refused before the iterations it summarises are touched one by one (a loop of `10 ** 7`
iterations was refused after 9 s of those touches, one of `2 ** 64` crashed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, fixed_flash_attention
from pto_transpile import transpile

DEMO = (Path(__file__).parents[2] / "examples" / "seed_demo.py").read_text(encoding="utf-8")
BODY = "    for ki in pl.range(0, N_ITER):\n        with pl.section_cube():\n"


def _diagnostics(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.is_error]


@pytest.mark.parametrize("text", [
    edited(DEMO, [(BODY, "    for ki in pl.range(0, N_ITER):\n        for w in pl.range(0, 1 << 64):\n"
                         "            pass\n        with pl.section_cube():\n")]),
    edited(DEMO, [("    for ki in pl.range(0, N_ITER):\n", "    for ki in pl.range(0, 10 ** 30):\n")]),
    edited(DEMO, [("    cur_a = a_l1_db.next()\n", "    cur_a = a_l1_db.next()\n    for r in pl.range(0, NO_LIMIT):\n"
                                                    "        pass\n"),
                  ("N_ITER = 4\n", "N_ITER = 4\nNO_LIMIT = 1 << 64\n")]),
], ids=["in the body", "the pipeline loop", "in a stage"])
def test_a_range_past_the_machine_size_is_too_long_to_follow(text):
    (found,) = _diagnostics(text)
    assert found[0] == "PTO061" and "runs too many iterations to follow" in found[1], found


@pytest.mark.parametrize("bound", ["1 << 64", "10 ** 7"])
def test_a_vector_function_loop_past_the_op_budget_is_refused_at_once(bound):
    text = edited(fixed_flash_attention(), [("    for i in pl.range(0, QUARTER):\n        r0 = vf.load_align",
                                             f"    for i in pl.range(0, {bound}):\n        r0 = vf.load_align")])
    (found,) = _diagnostics(text)
    assert found[0] == "PTO061" and "(in `column_max_vf`) runs" in found[1] and "too many to follow" in found[1], found
