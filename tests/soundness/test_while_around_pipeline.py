"""A counter overflow caused by a run-time `while` around the pipeline loop names the `while`
and says to write it as a `for` over `pl.range` (probe h73). The transform opens and closes a
pipeline around its outermost `for`; inside a `while` both repeat at every repetition, and a
repetition that runs no task lets the consumer's opening sets pile up. Before, the refusal's help
said "Give the buffer more event ids (one per tile), or lower `preload`", which does not help, with
the caret on `def kern(`."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
PARAMS = "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n):\n"
LOOP = "    for i in pl.range(0, n_blocks):\n"
BODY = BASE[BASE.index(LOOP):]


def _around(header: str, step: str = "") -> str:
    """`BASE` with its pipeline loop repeated `d` times by `header`, `step` ending each repetition."""
    inner = "".join("    " + line if line.strip() else line for line in BODY.splitlines(keepends=True))
    return edited(BASE, [(PARAMS, PARAMS.replace("):\n", "    d: pl.DT_INT32,\n):\n")),
                         (BODY, header + inner + step)])


WHILE = _around("    k = 0\n    while k < d:\n", "        k = k + 1\n")
FOR = _around("    for k in pl.range(0, d):\n")


def test_an_overflow_from_a_while_around_the_pipeline_loop_names_the_while():
    [d] = [d for d in transpile(WHILE, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.PIPELINE_NOT_PROVEN
    assert "which overflows the hardware counter: the pipeline loop runs inside `while k < d:`, so the sets that " \
           "open it and the waits that close it run at every repetition" in d.message, d.message
    assert d.line == WHILE.splitlines().index("    while k < d:") + 1
    assert d.hint.startswith("Write the `while` around the pipeline loop as a `for` loop over `pl.range`"), d.hint


def test_the_for_loop_the_hint_names_is_proven():
    result = transpile(FOR, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None


def _nested(header: str, step: str) -> str:
    """`BASE` with its pipeline loop inside `header`'s two loops, `step` ending each repetition
    of the inner one."""
    inner = "".join("        " + line if line.strip() else line for line in BODY.splitlines(keepends=True))
    return edited(BASE, [(PARAMS, PARAMS.replace("):\n", "    d: pl.DT_INT32,\n):\n")),
                         (BODY, header + inner + step)])


#: probe h75: the `while` inside a `for` around the pipeline loop. The pipeline opens before the
#: `for`, so the `while` repeats no opening sets; every run passed, but each run at a value of `d`
#: asked for the next (`k < d` changes outcome at k = d), and the check went on to 200 values of `d`,
#: each at 8 trip counts and longer than the last: --check did not end in 600 s.
WHILE_IN_FOR = _nested("    for r in pl.range(0, 2):\n        k = 0\n        while k < d:\n",
                       "            k = k + 1\n")
FOR_IN_FOR = _nested("    for r in pl.range(0, 2):\n        for k in pl.range(0, d):\n", "")


@pytest.mark.campaign  # 4 s
def test_a_while_on_a_parameter_inside_a_for_is_refused_promptly_naming_it(monkeypatch):
    from pto_transpile.soundness import check

    # main followed `d` up to this many values (past 600 s); lowered, main ends in ~40 s with another message
    monkeypatch.setattr(check, "MAX_CUT_RUNS", 20)
    runs = []
    one = check._check_one
    monkeypatch.setattr(check, "_check_one", lambda *args: runs.append(args[4]) or one(*args))
    [d] = [d for d in transpile(WHILE_IN_FOR, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.PIPELINE_NOT_PROVEN
    assert "each asked for a larger value of `d` than their own" in d.message, d.message
    assert "`while k < d:` tests `d`, and its test changes outcome where the loop ends" in d.message, d.message
    assert d.line == WHILE_IN_FOR.splitlines().index("        while k < d:") + 1
    assert d.hint.startswith("Write the `while` as a `for` loop over `pl.range`"), d.hint
    assert len(runs) < 150, len(runs)


def test_the_for_loop_inside_a_for_the_hint_names_is_proven():
    result = transpile(FOR_IN_FOR, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None


def test_a_while_on_a_parameter_that_a_constant_bounds_is_still_proven():
    # `k < 3` ends the loop from d = 3 on: the runs at d stop asking for d + 1 there
    text = WHILE_IN_FOR.replace("        while k < d:\n", "        while k < d and k < 3:\n")
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
