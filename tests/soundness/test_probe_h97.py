"""Probe h97: a tile's valid shape is state one iteration may hand to another, and four kernels
used it so: a slot sized in the first task and stored from in task 13, a slot of a tuple picked by
a residue, a slot sized 13 or 15 tasks ahead. The check took such groups' slots as alike (renamed,
their rotation left out of the period) and proved the loop at trip counts that never reach the task
using the shape; the emulator shows each race. Now a group or sequence whose slots a loop gives an
exact valid shape other than the declared one is not renamed, and a stage's op using a shape set
(exactly, not as declared) by another task is refused, naming the tile and the task that set it."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
#: each hole -> the tile and task of the first use the check refuses, and the task that set its shape
HOLES = {"renamed_group_unlike_valid_shapes": ("g[1]", 1, 0), "renamed_tuple_unlike_valid_shapes": ("b13", 13, 0),
         "renamed_group_state_carried_ahead": ("g[13]", 13, 0),
         "period_bound_state_carried_in_slot_shapes": ("g[15]", 15, 0)}


def _kernel(name: str) -> str:
    return kernel_text(KERNELS / f"h97_{name}.py")


@pytest.mark.parametrize("name", list(HOLES))
@pytest.mark.parametrize("preload", [1, 2])
def test_a_valid_shape_carried_to_a_later_task_is_refused(name, preload):
    messages = error_messages(transpile(_kernel(name), path="k.py", preload=preload))
    assert len(messages) == 1 and "a valid shape one iteration hands to another" in messages[0], messages
    tile, task, by = HOLES[name]
    assert f"stage `finish` (task {task}) uses the valid shape of `{tile}` that stage `finish` in task {by} set" \
        in messages[0], messages


def test_the_emulator_shows_the_race_the_check_missed():
    """The first hole's pipelined kernel, written with the check skipped, races from 15 tiles."""
    from pto_transpile import codes

    text = _kernel("renamed_group_unlike_valid_shapes")
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    shapes = {"a": (15 * 32, 32), "out": (15 * 32, 32)}
    report = verify(text, code, "kern", shapes=shapes, scalars={"d": 1, "alpha": 0.5})
    assert [r.verdict for r in report.rows] == ["ok", "race"], report.rows


@pytest.mark.campaign  # (slow: the default tier stays within five minutes on two cores)
def test_a_shape_set_in_every_task_before_its_use_is_accepted():
    """The same group, each task sizing the slot it stores from before storing."""
    text = edited(_kernel("renamed_group_unlike_valid_shapes"), [
        ("    if i == 0:\n        for k in range(16):\n            s = g.next()\n"
         "            pl.set_validshape(s, [16 if k == 13 else 8, BLOCK])\n    r2 = g.next()\n",
         "    r2 = g.next()\n    pl.set_validshape(r2, [8, BLOCK])\n")])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    shapes = {"a": (15 * 32, 32), "out": (15 * 32, 32)}
    report = verify(text, result.code, "kern", shapes=shapes, scalars={"d": 1, "alpha": 0.5})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows
