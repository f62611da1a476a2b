"""A probe (h61) of the day's changes. Besides more ways for a field a stage writes to reach the
code after it (tests/soundness/test_probe_h58.py), it found a load of a 3-D tensor with
`order=[0, 1]`, a window over its first two axes, placed over the last two (a slab nothing
writes): accepted, and a race on the emulator. And a tile group whose `depth=` is a tiling-key
expression passed the depth rule, which skipped a depth that is no one number."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
SLABS = edited(TILED, [
    ("def project(i, a, w_slot,", "def project(i, out, w_slot,"),
    ("    pl.load(cur_a, a, [i * BLOCK, 0])", "    pl.load(cur_a, out, [8 + i, 0, 0], order=[0, 1])"),
    ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])", "    pl.store(out, res, [32 + i, sub_id * HALF, 0])"),
    ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],", "    out: pl.Tensor[[64, BLOCK, BLOCK], pl.DT_FP32],"),
    ("    for i in pl.range(core_id, n_blocks, num_cores):", "    for i in pl.range(0, 4):"),
    ("project(i, a, w_slot,", "project(i, out, w_slot,")])


@pytest.mark.parametrize("preload", [1, 2])
def test_a_window_over_the_first_axes_of_a_3d_tensor_is_not_placed_on_the_last(preload):
    errors = error_messages(transpile(SLABS, path="slabs.py", preload=preload))
    assert any("`pl.load` on MTE2 of AIC reads `out`" in e for e in errors), errors


DEEP = edited(TILED, [("        mutex_ids=[8, 9],\n", "        mutex_ids=[8, 9],\n        depth=ApplyRelu + 1,\n")])


def test_a_depth_of_the_tiling_key_is_judged_in_each_instance():
    errors = error_messages(transpile(DEEP, path="deep.py", preload=1))
    assert errors == ["tile group `proj_vec_db` has depth=1 (in the instance ApplyRelu=0) but 2 mutex_ids"], errors
    assert error_messages(transpile(DEEP.replace("ApplyRelu + 1", "ApplyRelu * 0 + 2"), path="deep.py")) == []
