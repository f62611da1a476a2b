"""Probe h171: a kernel pipelined by hand whose tiling-key instances cannot be listed (a field
given `TilingKeyField(1, [0])` with no `values=`, a `__X` field, more than 64 instances) is
proven once with its fields unknown; what that proof could not follow was reported as a test of
a field it "cannot decide", beside words saying it decides tests of tiling-key fields, and never
named the key. The warning (PTO077) now leads with why the instances cannot be listed."""

from __future__ import annotations

import pytest

from helpers import edited, hand_pipelined_over_blocks
from pto_transpile import transpile

KEYED = edited(hand_pipelined_over_blocks(), [
    ("import pypto_pro.language as pl\n",
     "import pypto_pro.language as pl\nfrom pypto_pro.runtime.tilingkey import TilingKeyField\n"),
    ("@pl.jit(auto_mutex=True)\n",
     "class Key:\n    X = TilingKeyField(bits=1, values=[0])\n    Late = TilingKeyField(bits=1, values=[0, 1])\n\n"
     "    def is_valid(self, key):\n        return key[0] == 0\n\n\n"
     "def peek(x_db, r_db):\n    x = x_db.current()\n    r = r_db.current()\n    pl.relu(r, x)\n\n\n"
     "@pl.jit(auto_mutex=True, tiling_key=Key)\n"),
    ("                before = ring[(t - 1) % 2]\n",
     "                before = ring[(t - 1) % 2]\n"
     "                if Late == 1:\n                    peek(x_db, r_db)\n"),
])

UNREADABLE = {
    "no values=": (("X = TilingKeyField(bits=1, values=[0])", "X = TilingKeyField(1, [0])"),
                   "tiling-key field `X` cannot be enumerated: it has no `values=`"),
    "a mangled name": (("    X = TilingKeyField(bits=1, values=[0])", "    __X = TilingKeyField(bits=1, values=[0])"),
                       "class `Key` names `__X` in its body"),
}


def test_the_race_of_one_instance_is_shown_when_the_instances_can_be_listed():
    errors = [d for d in transpile(KEYED, path="k.py").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO068"] and "Late=1" in errors[0].message, [d.message for d in errors]


@pytest.mark.parametrize("case", UNREADABLE)
def test_a_key_that_cannot_be_listed_is_what_the_warning_names_first(case):
    edit, words = UNREADABLE[case]
    result = transpile(edited(KEYED, [edit]), path="k.py")
    warnings = [d for d in result.diagnostics if d.code == "PTO077"]
    assert warnings, [d.message for d in result.diagnostics]
    assert "the tiling-key instances cannot be listed" in warnings[0].message and words in warnings[0].message
