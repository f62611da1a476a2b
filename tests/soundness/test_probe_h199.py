"""Probe h199: `max((ki, 1), (WARMUP, 0))` compares the tuples item by item, a test of the loop
variable the model computed as plain Python at the counts it ran: from the 20th tile on the
vector stage stored the cross-core slot instead of its own tile, and the kernel was proven. A
`min`/`max` of sequences holding a value that varies between runs or iterations is refused now,
naming the comparison to write instead; of plain numbers it is judged as before."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile

PICK = ("    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n",
        "    res = (y, c_vec)[PICK]\n    pl.store(out, res, [ki * TILE + sub_id * HALF, 0])\n")


@pytest.mark.parametrize("pick", ["max((ki, 1), (19, 0))[1]", "min([(-ki, 1), (-19, 0)])[1]",
                                  "max([[ki, 1], [19, 0]])[1]", "max(((ki + 1, 1), (20, 0)))[1]"])
def test_min_and_max_of_sequences_of_the_loop_variable_are_refused(pick):
    text = edited(kernel("dynamic_rows.py"), [PICK]).replace("PICK", pick)
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "compares sequences holding a value that varies" in errors[0], errors


def test_min_of_plain_numbers_is_the_test_it_was():
    text = edited(kernel("dynamic_rows.py"), [PICK]).replace("PICK", "int(min(ki, 19) == 19)")
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "compares sequences" not in errors[0] and "`min(ki, 19)`" in errors[0], errors
