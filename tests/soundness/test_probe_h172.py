"""Probe h172: `==` of two dicts was computed as the model's objects compare
(`probed.loads_out`: from `f >= 4096` on the cube loads what the vector core stored one
iteration before). A dict holding the loop variable (`{"k": ki} == {"k": 40}`) was no test of it
to judge, and one holding functions or `pl` constants compared as the model's values do, not as
Python's (a function made anew each call equal to another, `pl.TilePad.zero` unequal to 1, an
IntEnum member that is 1): accepted, racing on the emulator. A dict's keys and values now count
as a list's items do: a run-time value in one is a test to judge, an object the model does not
compare as Python does leaves the outcome unknown."""

from __future__ import annotations

import pytest
from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile

MAKE = "    def make():\n        def g():\n            return 0\n        return g\n\n"
TESTS = {
    "the loop variable in a dict": ("", "        f: pl.DT_INT32 = ({'k': ki} == {'k': 40}) * 4096\n"),
    "functions in a dict": (MAKE, "        f: pl.DT_INT32 = (ki >= 1) * ({'k': make()} != {'k': make()}) * 4096\n"),
    "a pl constant in a dict": ("", "        f: pl.DT_INT32 = (ki >= 1) * ({'k': pl.TilePad.zero} == {'k': 1})"
                                    " * 4096\n"),
}


@pytest.mark.parametrize("case", TESTS)
def test_a_comparison_of_dicts_is_judged_as_one_of_their_items(case):
    before, body = TESTS[case]
    errors = error_messages(transpile(loads_out(before, body), path="k.py", preload=2))
    assert errors and "`out` is written in a loop of run-time trip count" in errors[0], errors


def test_dicts_of_plain_values_compare_as_python_does():
    body = "        f: pl.DT_INT32 = ({'k': 1, 'j': 2.0} == {'j': 2, 'k': 1}) * 0\n"
    result = transpile(loads_out("", body), path="k.py", preload=2)
    assert result.ok, error_messages(result)
