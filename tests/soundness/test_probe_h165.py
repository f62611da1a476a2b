"""Probe h165: two more values an iteration handed the next that the check did not see change.
In each kernel the cube stage is given `f`, and from `f >= 4096` on (the eleventh or twelfth
tile) loads the tile of `out` the vector core stored one iteration before (`probed.loads_out`);
both were accepted and raced on the emulator.

- The sign of a NaN, four names holding `nan` or `-nan` as the bits of a count read back with
  `math.copysign`: floats were compared with every NaN equal to every other; they are compared
  bit for bit now (a NaN computed alike at every iteration is still the same).
- A walrus in a nested function's annotation, `def g(x: (e := e * 2) = 0):` in the loop body:
  Python evaluates annotations when the `def` runs and `e` doubles, while the check ran none.
"""

from __future__ import annotations

import pytest
from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile


def test_the_sign_of_a_nan_is_told_apart():
    before = "    nan = float('nan')\n" + "".join(f"    b{j} = nan\n" for j in range(4))
    body = ("".join(f"        t{j} = int(math.copysign(1.0, b{j}) < 0)\n" for j in range(4))
            + "        c = t0 + 2 * t1 + 4 * t2 + 8 * t3\n        f: pl.DT_INT32 = (c >= 12) * 4096\n"
            + "        m = c + 1\n"
            + "".join(f"        b{j} = -nan if m % {2 ** (j + 1)} >= {2 ** j} else nan\n" for j in range(4)))
    errors = error_messages(transpile("import math\n" + loads_out(before, body), path="k.py", preload=2))
    assert errors and "`b0` carries a value from one iteration to the next" in errors[0], errors


def test_a_nan_made_alike_at_every_iteration_is_the_same():
    body = "        g = float('nan')\n        f: pl.DT_INT32 = 0\n"
    text = loads_out("    g = float('nan')\n", body.replace("        f:", "        h = g\n        f:"))
    assert error_messages(transpile(text, path="k.py", preload=2)) == []


@pytest.mark.parametrize("annotated", ["def g(x: (e := e * 2) = 0):", "def g(x=0) -> (e := e * 2):",
                                       "def g(*x: (e := e * 2)):"])
def test_a_walrus_in_a_nested_function_s_annotation_is_refused(annotated):
    body = f"        {annotated}\n            return 0\n\n        f: pl.DT_INT32 = (e >= 4096) * 4096\n"
    errors = error_messages(transpile(loads_out("    e = 1\n", body), path="k.py", preload=2))
    assert errors and "the check does not run the annotations of `g`" in errors[0], errors
