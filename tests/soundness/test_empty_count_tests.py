"""A test on a trip count that tells apart counts at which its loop runs no iteration (`assert n
>= 0`: true at 0, false at -1) is run on each side, as a test on a sampled parameter is: the
runs at the counts around its root among the empty ones (probe h92: refused, with a help, `n > 0`,
that changed what the kernel accepts). What the kernel does at such a count is then judged like
any other run: a defect only there is found, with the count that shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = (Path(__file__).parent / "kernels" / "trip_param.py").read_text(encoding="utf-8")
LOOP = "    for ki in pl.range(0, n):\n"
BIAS = "        pl.full(bias_2, 3.0)\n"


@pytest.mark.parametrize("guard", ["    assert n >= 0, 'n'\n", "    assert n > -1\n", "    assert not n < 0\n",
                                   "    assert 0 <= n\n", "    if n < 0:\n        return\n"])
def test_a_nonnegative_guard_is_accepted(guard):
    text = edited(KERNEL, [(LOOP, guard + LOOP)])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    for n in (0, 5):
        report = verify(text, result.code, "kernel", shapes={"a": (160, 32), "out": (160, 32)}, scalars={"n": n})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (n, report.rows)


@pytest.mark.parametrize("test, shown", [("n < -3", -4), ("n < -300", -301), ("2 * n + 7 < 0", -4), ("n == -1", -1)])
def test_a_defect_only_at_an_empty_count_is_found(test, shown):
    """A store of a tile just filled, on another pipe with no sync between (and by both vector cores
    to the same rows of `last`), under a test only a negative count passes: found at that count (it
    was refused as a test the check could not follow)."""
    text = edited(KERNEL, [(BIAS, BIAS + f"        if {test}:\n            pl.store(last, bias_0, [0, 0])\n")])
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and all(m.endswith(f"(shown with `n` = {shown})") for m in messages), messages
    assert "`pl.store` on MTE3 of AIV0 reads `bias_0`" in messages[0], messages


#: the second loop of probe h102's kernels over a static count: the runs of the first loop's count
#: alone (its run-time count made the runs those of both counts, 214 in 11 s; both forms refused)
SECOND_LOOP = ("    m = a.shape[0] // TILE - 1\n", "    m = 4\n")


@pytest.mark.parametrize("second, words", [
    pytest.param(None, "pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])", marks=pytest.mark.campaign,
                 id="run-time"),
    pytest.param(SECOND_LOOP, "(shown with `n` = -8)", id="static")])
def test_each_residue_of_the_count_is_run_on_each_side(second, words):
    """`n % 3 == 1 and n < -5`: the runs around -5 take each residue of 3 on each side (probe h102:
    the three runs at -6, -5 and -4 never took the branch, true at -8)."""
    text = kernel_text(Path(__file__).parent / "kernels" / "h102_empty_count_residue_and.py")
    messages = error_messages(transpile(edited(text, [second]) if second else text, path="k.py"))
    assert messages and words in messages[0], messages


@pytest.mark.parametrize("name, words", [
    pytest.param("empty_count_dim_residue_and", "pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])",
                 marks=pytest.mark.campaign),
    ("fractional_count_bound", "`n <= -0.5` compares a value that varies between runs with a number that is not "
                                 "whole"),
])
def test_probe_h102_kernels_are_refused(name, words):
    """A dimension root's residue with a test on its empty counts; a test against a fraction."""
    text = kernel_text(Path(__file__).parent / "kernels" / f"h102_{name}.py")
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and words in messages[0], messages


def test_a_dimension_root_s_residue_with_a_test_on_its_empty_counts_is_refused():
    """probe h102's dimension kernel with its second loop over a static count (the campaign runs it
    as it is): `n % 4 == 1 and n < 4` of the warm-up loop's `n - 8` iterations, true at n = 1."""
    text = edited(kernel_text(Path(__file__).parent / "kernels" / "h102_empty_count_dim_residue_and.py"),
                  [SECOND_LOOP])
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and "(shown with `warm.shape[0] // 32` = 1)" in messages[0], messages
