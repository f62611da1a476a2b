"""Probe h99 on the valid-shape, module tile type and function attribute work: seven kernels the
check accepted whose pipelined run raced or computed other numbers. A stage op now sees its tiles'
valid shapes set where its serial twin's were (`Event.shapes`: a shape set under a test followed
both ways, or used through a view); a shape set by kernel-body code in the loop, a tile type made
there with a run-time valid shape, any in-loop set of a slot (even back to its declared shape),
`f.__kwdefaults__[...] = ...`, and a module tile type whose names were rebound after it are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import error_messages, kernel_text
from pto_transpile import codes, transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
#: each hole -> what its refusal says, and an emulator run that shows the defect
HOLES = {
    "body_code_run_time_valid_shape": (
        "that kernel-body code inside a loop of run-time trip count set",
        ("tiled_scale_kernel", {"a": (192, 32), "out": (192, 32), "out2": (192, 32)},
         {"d": 4, "e": 16, "scale": 0.5, "ApplyRelu": 0})),
    "both_ways_branch_valid_shape": (
        "uses a tile whose valid shape stage `finish` in task 0 set in the serial kernel but stage `finish` in task",
        ("kern", {"a": (192, 32), "b": (192, 32), "out": (192, 32), "out2": (192, 32)}, {"alpha": 2.5})),
    "view_carries_valid_shape": (
        "uses the valid shape of `t_g[0]` that stage `finish` in task 1 set",
        ("kern", {"a": (192, 32), "b": (192, 32), "out": (192, 32), "out2": (192, 32)}, {})),
    "set_back_to_declared_shape": ("stage `finish` (task 13) uses the valid shape of `g[13]` that stage `finish` "
                                   "in task 0 set", None),
    "tile_type_made_per_iteration": ("makes a tile of a type whose valid shape kernel-body code inside the loop "
                                     "computes at run time", None),
    "kwdefaults_item_set": ("the file sets `__kwdefaults__` of some object", None),
    "module_tile_type_reads_rebound_name": ("the tile type of this group is not static; `HALF_VEC`", None),
}


def _kernel(name: str) -> str:
    return kernel_text(KERNELS / f"h99_{name}.py")


@pytest.mark.parametrize("name", list(HOLES))
def test_the_hole_is_refused(name):
    messages = error_messages(transpile(_kernel(name), path="k.py"))
    assert any(HOLES[name][0] in m for m in messages), messages


@pytest.mark.parametrize("name", [n for n, (_, run) in HOLES.items() if run is not None])
def test_the_emulator_shows_the_defect(name):
    """The pipelined kernel, written with the check skipped, is wrong on the emulator."""
    text = _kernel(name)
    kernel, shapes, scalars = HOLES[name][1]
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    report = verify(text, code, kernel, shapes=shapes, scalars=scalars)
    assert report.rows[0].verdict == "ok" and report.rows[1].verdict in ("mismatch", "race"), report.rows
