"""A long static loop in a kernel with an integer scalar parameter is proven as it is without
one (probe h88).

rows_two_stages.py at 16384 static row tiles, with a parameter `apply_relu` the vector stage
tests, was followed iteration by iteration at each sample of the parameter and refused as
"too many statements", with a help naming the loop form it already had; without the parameter,
or with `pl.DYNAMIC` rows, it was proven in under a second. Now its representative runs take
each sample of the parameter, and where those do not apply, the static sizes are followed as
sizes known only at run time. The racy twins stay refused, naming the two accesses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
TILES = 16384
STORE = "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
SWITCHED = edited(ROWS, [
    ("    a: pl.Tensor[[pl.DYNAMIC, BLOCK]", f"    a: pl.Tensor[[{TILES} * BLOCK, BLOCK]"),
    ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK]", f"    out: pl.Tensor[[{TILES} * BLOCK, BLOCK]"),
    ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
     "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    apply_relu: pl.DT_INT32,\n"),
    ("def finish(i, sub_id, out, proj_vec_db, res_db):",
     "def finish(i, sub_id, out, a, proj_vec_db, res_db, apply_relu):"),
    (STORE, "    if apply_relu == 1:\n        pl.relu(res, res)\n" + STORE),
    ("finish(i, sub_id, out, proj_vec_db, res_db)", "finish(i, sub_id, out, a, proj_vec_db, res_db, apply_relu)"),
])
#: the vector stage of task i writes the row tile the cube stage of task i + 1 loads: at one
#: value of the parameter, or at every value, a tile the parameter places
RACES = {
    "a tile the parameter places": "    pl.store(a, res, [(i + apply_relu) * BLOCK + sub_id * HALF, 0])\n",
    "at one value": "    if apply_relu == 7:\n        pl.store(a, res, [(i + 1) * BLOCK + sub_id * HALF, 0])\n",
}


def _errors(text: str) -> list[str]:
    return [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_the_switched_kernel_is_proven_and_its_output_runs_as_the_serial_one():
    result = transpile(SWITCHED, path="k.py")
    assert [d.message for d in result.diagnostics] == [] and result.code is not None
    small = {"a": (4 * 32, 32), "out": (4 * 32, 32)}
    for apply_relu in (0, 1):  # the output does not depend on the size: run it on 4 tiles
        serial, code = (t.replace(f"{TILES} * BLOCK", "4 * BLOCK") for t in (SWITCHED, result.code))
        report = verify(serial, code, "kern", path="k.py", shapes=small, scalars={"apply_relu": apply_relu})
        assert [row.verdict for row in report.rows] == ["ok", "ok"], apply_relu


@pytest.mark.parametrize("race", list(RACES))
def test_the_racy_twins_are_refused_naming_the_accesses(race):
    errors = _errors(SWITCHED.replace(STORE, STORE + RACES[race]))
    assert len(errors) == 1 and "`pl.load(cur_a, a, [i * BLOCK, 0])` and `pl.store(a, res, [(i + " in errors[0], errors
