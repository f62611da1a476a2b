"""Probe h166: two expressions Python runs and the check's model did not, each doubling `e`, a
value then never compared between iterations; from the eleventh tile on the cube stage loads
what the vector core stored one iteration before (`probed.loads_out`): accepted, and racing on
the emulator.

- A walrus in a lambda's default, `g = lambda x=(e := e * 2): x` (defaults are computed when the
  lambda is made; only those that call something were refused).
- An annotated assignment with no value to a subscript or attribute, `box[(e := e * 2) * 0]: int`
  (Python evaluates the target's parts; the model skipped the statement), also with a call,
  `box[seen.append(1) or 0]: int`.
"""

from __future__ import annotations

import pytest
from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile


@pytest.mark.parametrize("line, words", [
    ("g = lambda x=(e := e * 2): x", "the check does not run a lambda's defaults"),
    ("g = lambda *, x=(e := e * 2): x", "the check does not run a lambda's defaults"),
    ("box[(e := e * 2) * 0]: int", "annotates a subscript or attribute without a value"),
    ("[box, (e := e * 2)][0].x: int", "annotates a subscript or attribute without a value"),
])
def test_an_expression_python_runs_that_binds_is_refused(line, words):
    text = loads_out("    e = 1\n    box = [0]\n", f"        {line}\n        f: pl.DT_INT32 = e\n")
    errors = error_messages(transpile(text, path="k.py", preload=2))
    assert errors and words in errors[0], errors


def test_a_plain_name_annotated_without_a_value_is_still_followed():
    text = loads_out("", "        g: int\n        f: pl.DT_INT32 = 0\n")
    assert error_messages(transpile(text, path="k.py", preload=2)) == []
