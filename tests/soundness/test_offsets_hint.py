"""A kernel of static trip count whose GM accesses of a written tensor a scalar parameter moves
differently (`a[i * s * BLOCK]` loaded, `a[(i * s + 4) * BLOCK]` stored) is refused for every
value of `s`, with a help about those offsets (probe h74). The help spoke of loops of run-time
trip count, then of testing parameters against fewer values: neither is in this kernel."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import codes, transpile
from pto_transpile.soundness.proof import HINTS

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
#: three row blocks of static tensors; the cube loads rows `i * s`, the vector stage stores rows `i * s + 4`
MOVED = edited(BASE, [
    ("def project(i, a,", "def project(i, s, a,"),
    ("    pl.load(cur_a, a, [i * BLOCK, 0])\n", "    pl.load(cur_a, a, [i * s * BLOCK, 0])\n"),
    ("def finish(i, sub_id, out,", "def finish(i, s, sub_id, a,"),
    ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
     "    pl.store(a, res, [(i * s + 4) * BLOCK + sub_id * HALF, 0])\n"),
    ("    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
     "    a: pl.Tensor[[16 * BLOCK, BLOCK], pl.DT_FP32],\n    out: pl.Tensor[[16 * BLOCK, BLOCK], pl.DT_FP32],\n"),
    ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
     "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    s: pl.DT_INT32,\n"),
    ("    for i in pl.range(0, n_blocks):\n", "    for i in pl.range(0, 3):\n"),
    ("            project(i, a,", "            project(i, s, a,"),
    ("            finish(i, sub_id, out,", "            finish(i, s, sub_id, a,"),
])


def test_offsets_a_parameter_moves_differently_get_the_help_about_those_offsets():
    [d] = [d for d in transpile(MOVED, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.PIPELINE_NOT_PROVEN
    assert "`a` is written, and its accesses are offset by the run-time value of `s` differently" in d.message
    assert d.hint == HINTS["offsets"], d.hint
    assert "trip count" not in d.hint and "fewer values" not in d.hint
