"""A tile of a cross-core group reaching an op through tuple unpacking (`s, d = c_vec, y; pl.relu(d,
s)`), a `for` target or `getattr(pl, "relu")`: the scan does not tie the operand to the group, so
PTO033 says the consuming stage does not use it. Right to refuse (pipelined, no wait stands before
the read), but the message listed a method of a class and a `*` argument, and asked to do the op
in the stage, which it was (probe h219). It names these forms now, and what the scan follows."""

from __future__ import annotations

import pytest

from helpers import DYNAMIC_ROWS, edited
from pto_transpile import codes, transpile

ROWS = DYNAMIC_ROWS.read_text(encoding="utf-8")
RELU = "    pl.relu(y, c_vec)\n"


@pytest.mark.parametrize("written", ["    s, d = c_vec, y\n    pl.relu(d, s)\n",
                                     "    for src in (c_vec,):\n        pl.relu(y, src)\n",
                                     "    getattr(pl, 'relu')(y, c_vec)\n"])
def test_the_forms_the_scan_does_not_follow_are_named(written):
    found = [d for d in transpile(edited(ROWS, [(RELU, written)]), path="k.py").diagnostics if d.is_error]
    assert [d.code for d in found] == [codes.CROSS_CORE_BUFFER_USER_COUNT], found
    assert "tuple unpacking, a `for` target, an item of a container" in found[0].message, found[0].message
    assert "`getattr(pl, ...)`" in found[0].message and "give the op that name" in found[0].message
