"""A pipeline loop whose body rebinds a name its end reads (`for ki in pl.range(0, left):` with
`left = left - 1` in the body): `range` takes the end once, so the pipelined loop keeps it in
`_pl_end_<var>` before the loop for its per-beat validity test, which re-read the rebound name
(the proof refused the output, with a message blaming the pipeline: a valid kernel refused).
A loop whose end nothing rebinds is written as before. The kernel edits
tests/soundness/kernels/trip_param.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

BASE = (Path(__file__).parents[1] / "soundness" / "kernels" / "trip_param.py").read_text()
TEXT = edited(BASE, [("    for ki in pl.range(0, n):\n",
                      "    left = 8\n    for ki in pl.range(0, left):\n        left = left - 1\n")])


@pytest.mark.parametrize("preload", [1, 2])
def test_the_end_is_kept_before_the_loop_and_the_kernel_is_proven(preload):
    result = transpile(TEXT, path="rebound.py", preload=preload)
    assert error_messages(result) == [], [str(d) for d in result.diagnostics]
    code = result.code
    assert "    _pl_end_ki = left\n    for ki in pl.range(0, left):\n" in code
    assert "        if ki < _pl_end_ki:\n" in code


def test_an_end_nothing_rebinds_is_read_in_place():
    code = transpile(BASE, path="plain.py", preload=1).code
    assert "_pl_end" not in code and "        if ki < n:\n" in code


@pytest.mark.emulator
def test_it_verifies_ok():
    code = transpile(TEXT, path="rebound.py", preload=1).code
    report = verify(TEXT, code, "kernel", path="rebound.py", scalars={"n": 2},
                    shapes={"a": (256, 32), "out": (256, 32)})
    assert report.ok, report.summary()
