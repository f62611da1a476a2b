"""Probe h168: a method of a list the check follows, handed on instead of called where it is
named, and called by a builtin the check lets through (`probed.loads_out`: from `f >= 4096` on
the cube loads what the vector core stored one iteration before). The method was an unknown
value, its tie to the list lost, so the list kept its first value in the check while it grew
by one or two items an iteration on the emulator; both were accepted and raced at 13 tiles.
Taking such a method as a value (`box.append`, `getattr(box, "append")`) is refused now."""

from __future__ import annotations

import pytest
from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile

HANDED_ON = {
    "sorted's key": ("    box = [0]\n", "        t = sorted([0], key=box.append)\n",
                     "`box.append` hands on a method that changes a list the check follows"),
    "getattr": ("    box = [0]\n", "        t = sorted([0], key=getattr(box, 'append'))\n",
                "cannot tell what `getattr` does with the list"),
    "print's file": ("    box = [0]\n    st = pl.struct(k=0, write=0)\n    st.write = box.append\n",
                     "        print(0, file=st)\n", "`box.append` hands on a method that changes a list"),
}


@pytest.mark.parametrize("case", HANDED_ON)
def test_a_method_of_a_followed_list_handed_on_is_refused(case):
    before, body, words = HANDED_ON[case]
    body += "        f: pl.DT_INT32 = (len(box) >= 14) * 4096\n"
    errors = error_messages(transpile(loads_out(before, body), path="k.py", preload=2))
    assert errors and words in errors[0], errors


def test_the_method_called_where_it_is_named_is_followed():
    # the same growth, written as a call: a counter in disguise the comparison of iteration starts refuses
    body = "        box.append(0)\n        f: pl.DT_INT32 = (len(box) >= 14) * 4096\n"
    errors = error_messages(transpile(loads_out("    box = [0]\n", body), path="k.py", preload=2))
    assert errors and "`box`" in errors[0] and "hands on" not in errors[0], errors
