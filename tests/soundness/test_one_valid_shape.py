"""A tile whose valid shape is only ever one compile-time shape (`[8, BLOCK]` set before the loop
and again by a stage in every task) has that shape at every use, whichever task set it: it was
refused as a valid shape one iteration hands to another, with a help the kernel already followed
(probe h99). A shape that differs anywhere (another constant, the tile's own before the first
set, one computed at the iteration) is still refused so (`test_probe_h97.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, edited_kernel, refusal_of

KERNELS = Path(__file__).parent / "kernels"
SAME = KERNELS / "h99_same_shape_every_task.py"


@pytest.mark.parametrize("rows", [192, 96])
def test_one_shape_set_in_every_task_is_proven_and_runs(rows):
    assert_proven_and_run(SAME, "kern", shapes={k: (rows, 32) for k in ("a", "b", "out", "out2")})


@pytest.mark.parametrize("old, new", [
    ("    pl.set_validshape(t, [8, BLOCK])  # the rows emit works on", "    pl.set_validshape(t, [4, BLOCK])"),
    ("        pl.set_validshape(t, [8, BLOCK])\n", "\n"),
])
def test_another_shape_anywhere_is_refused(tmp_path, old, new):
    """The stage sets 4 rows where the body set 8; or the body sets none (the tile's own 16 rows)."""
    refusal = refusal_of(edited_kernel(tmp_path, SAME, old, new))
    assert "a valid shape one iteration hands to another" in refusal, refusal
