"""Probe h162: two ways an iteration handed the next a value never judged. In each kernel the
cube stage is given `f`, and from `f >= 4096` on (the twelfth tile) loads the tile of `out` the
vector core stored one iteration before: serially after the store, pipelined before it. Both
were accepted and raced on the emulator from tile 12.

- Names (or list items) holding `1` or `1.0`, a binary counter of four such bits: the comparison
  of iteration starts used `==`, which says `1 == 1.0`; the kernel tells them apart by
  `(b * 10 ** 17 + 1) - b * 10 ** 17` (the float loses the 1).
- A walrus in a section's argument, `with pl.section_vector((e := 0)):`: Python evaluates it,
  the transform and the check read a section by its name alone, so `e` was taken as bound and
  the doubling `e` read afterwards was never judged. A section takes no arguments (PTO087).
"""

from __future__ import annotations

import pytest
from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile

BITS = "".join(f"    b{j} = 1\n" for j in range(4))
#: the count the bits hold (a 1.0 is a set bit), and the next count written into them
COUNT = ("".join(f"        t{j} = 1 - ((b{j} * 10 ** 17 + 1) - b{j} * 10 ** 17)\n" for j in range(4))
         + "        c = int(t0 + 2 * t1 + 4 * t2 + 8 * t3)\n        f: pl.DT_INT32 = (c >= 12) * 4096\n"
         + "        m = c + 1\n"
         + "".join(f"        b{j} = 1.0 if m % {2 ** (j + 1)} >= {2 ** j} else 1\n" for j in range(4)))
LIST_COUNT = ("        c = 0\n        for j in range(4):\n"
              "            c = c + int(1 - ((bits[j] * 10 ** 17 + 1) - bits[j] * 10 ** 17)) * 2 ** j\n"
              "        f: pl.DT_INT32 = (c >= 12) * 4096\n        m = c + 1\n        for j in range(4):\n"
              "            bits[j] = 1.0 if m % 2 ** (j + 1) >= 2 ** j else 1\n")


def _kernel(before: str, body: str) -> str:
    return loads_out(before, body)


@pytest.mark.parametrize("before, body, words", [
    (BITS, COUNT, "`b0` carries a value from one iteration to the next"),
    ("    bits = [1, 1, 1, 1]\n", LIST_COUNT, "`bits` changes from one iteration of the loop to the next"),
], ids=["names", "list items"])
def test_one_and_one_point_zero_are_told_apart(before, body, words):
    errors = error_messages(transpile(_kernel(before, body), path="k.py", preload=2))
    assert errors and words in errors[0], errors


@pytest.mark.parametrize("argument", ["(e := 0)", "x=(e := 0)", "*[(e := 0)][:0]"])
def test_a_section_given_an_argument_is_refused(argument):
    text = _kernel("    e = 1\n", "        f: pl.DT_INT32 = e\n").replace(
        "        with pl.section_vector():\n", f"        with pl.section_vector({argument}):\n", 1)
    assert f"pl.section_vector({argument})" in text
    errors = error_messages(transpile(text, path="k.py", preload=2))
    assert errors and "`pl.section_vector(...)` takes no arguments" in errors[0], errors
