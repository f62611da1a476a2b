"""A trip count that is a multiple of a run-time value (`min(max(reps, 0), 4) * 2`) takes one
residue class of values: the check runs those alone, and the class joins the period the longer
runs repeat with (probe h120: a hand kernel balanced at every even count was run at 1 and refused)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = Path(__file__).parent / "kernels" / "h120_scaled_token_loop.py"
LOOP = "    for k in pl.range(0, min(max(reps, 0), 4) * 2):\n"


def _errors(text: str) -> list[str]:
    return error_messages(transpile(text, path="k.py"))


def test_a_loop_balanced_at_every_count_it_can_run_is_proven_and_runs_clean():
    text = kernel_text(KERNEL)
    assert _errors(text) == []
    for reps in (-3, 1, 3, 100):
        report = verify(text, {"as written": text}, "hand_pipelined_kernel", path="k.py",
                        shapes={"a": (96, 32), "out": (96, 32)}, scalars={"reps": reps})
        assert {r.verdict for r in report.rows} == {"ok"}, report.rows[-1].message


@pytest.mark.parametrize("loop", ["min(max(reps, 0), 4) * 2 + 1", "2 * min(max(reps, 0), 4) - 1",
                                  "max(min(max(reps, 0), 4) * 2, 1)"])
def test_a_count_of_another_class_is_run_at_its_odd_counts_and_refused(loop):
    """An odd count leaves the last set unwaited: each of these loops can run one (the `max` with 1
    runs a single beat at `reps <= 0`)."""
    text = edited(kernel_text(KERNEL), [(LOOP, f"    for k in pl.range(0, {loop}):\n")])
    assert any("never waited for" in m for m in _errors(text)), _errors(text)


def test_a_defect_at_one_residue_of_the_scaled_count_is_refused():
    """Sets at beats 0, 4, ..., waits at beats 3, 7, ...: balanced at counts 0, 4 and 8 (`reps` even),
    a set left over at 2 and 6 (`reps` odd), which the even counts hold."""
    text = edited(kernel_text(KERNEL), [("        if k % 2 == 0:\n", "        if k % 4 == 0:\n"),
                                         ("        else:\n            with pl.section_cube():\n",
                                          "        elif k % 4 == 3:\n            with pl.section_cube():\n")])
    messages = _errors(text)
    assert any("never waited for" in m and "* 2` = 2" in m or "* 2` = 6" in m for m in messages), messages


def test_an_unbounded_multiple_still_grows_the_pending_sets():
    """Without the `min`, the vector cores run ahead of the cube without bound at large counts:
    the class changes which counts are run, not what a longer run is shown to do."""
    text = edited(kernel_text(KERNEL), [(LOOP, "    for k in pl.range(0, max(reps, 0) * 2):\n")])
    assert any("the sets pending grow with the trip count" in m for m in _errors(text)), _errors(text)


def test_the_constant_on_the_left_is_read_as_on_the_right():
    """`2 * min(max(reps, 0), 4)` takes the values `min(max(reps, 0), 4) * 2` does: at most 8, so every
    count is run and no drift is judged (probe h123: it was refused as sets pending without bound)."""
    text = edited(kernel_text(KERNEL), [(LOOP, "    for k in pl.range(0, 2 * min(max(reps, 0), 4)):\n")])
    assert _errors(text) == []
