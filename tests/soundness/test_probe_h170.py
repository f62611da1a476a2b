"""Probe h170: which of the lists and structs a loop keeps are one object is carried state too
(`probed.loads_out`: from `f >= 4096` on the cube loads what the vector core stored one iteration
before). `L = [L[0], L[0]] + L[1:-1]` makes one more item of `L` the first list at every
iteration, so `L[40]` is `L[0]` from the 40th on, while every item compared equal at every
iteration's start; a write through `L[0]` was then read through `L[40]`. Accepted, racing on
the emulator from 41 tiles. The paths that reach one object are compared now (`loops._aliasing`)."""

from __future__ import annotations

import pytest
from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile

SHIFTED = {
    "items of a list": (f"    L = [{', '.join(['[0]'] * 48)}]\n",
                        "        L[0][0] = 1\n        f: pl.DT_INT32 = L[40][0] * 4096\n        L[0][0] = 0\n"
                        "        L = [L[0], L[0]] + L[1:-1]\n", "`L[1]` and `L[0]`"),
    "structs in a list": (f"    S = [{', '.join(['pl.struct(e=0)'] * 48)}]\n",
                          "        S[0].e = 1\n        f: pl.DT_INT32 = S[40].e * 4096\n        S[0].e = 0\n"
                          "        S = [S[0], S[0]] + S[1:-1]\n", "`S[1]` and `S[0]`"),
    "names": ("".join(f"    a{i} = [0]\n" for i in range(41)),
              "        a0[0] = 1\n        f: pl.DT_INT32 = a40[0] * 4096\n        a0[0] = 0\n"
              f"        {', '.join(f'a{i}' for i in range(1, 41))} = {', '.join(f'a{i}' for i in range(40))}\n",
              "`a1` and `a0`"),
}


@pytest.mark.parametrize("case", SHIFTED)
def test_objects_made_one_by_one_across_iterations_are_refused(case):
    before, body, words = SHIFTED[case]
    errors = error_messages(transpile(loads_out(before, body), path="k.py", preload=2))
    assert errors and f"whether {words} are one object changes" in errors[0], errors


def test_objects_that_are_one_at_every_iteration_s_start_are_proven():
    body = "        L[0][0] = 1\n        f: pl.DT_INT32 = L[1][0]\n        L[0][0] = 0\n"
    result = transpile(loads_out("    L = [[0]] * 2\n    M = L[1]\n", body + "        M[0] = M[0] * 1\n"),
                       path="k.py", preload=2)
    assert result.ok, error_messages(result)
