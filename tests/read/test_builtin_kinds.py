"""`int()`, `float()` and `bool()` with no argument are the numbers 0, 0.0 and False: a stage argument
bound to one is a scalar, carried in the ctx ring with its type. It was refused as of a kind the
tool cannot tell (PTO054)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile

DYNAMIC_ROWS = (Path(__file__).parents[1] / "soundness" / "kernels" / "dynamic_rows.py").read_text(encoding="utf-8")
#: its vector stage scaled by `f`, which the loop body binds
SCALED = [("def scale_store(ki, sub_id, out, c_vec_db, y_db):", "def scale_store(ki, f, sub_id, out, c_vec_db, y_db):"),
          ("    pl.relu(y, c_vec)\n", "    pl.relu(y, c_vec)\n    pl.muls(y, y, 1.0 + f)\n"),
          ("            scale_store(ki, sub_id, out, c_vec_db, y_db)",
           "            scale_store(ki, f, sub_id, out, c_vec_db, y_db)"),
          ("    for ki in pl.range(0, n_tiles):\n", "    for ki in pl.range(0, n_tiles):\n        f = VALUE\n")]


@pytest.mark.parametrize(("value", "field"), [("int()", "f=0,"), ("float()", "f=0.0,"), ("bool()", "f=0,")])
def test_a_builtin_called_with_nothing_is_a_scalar(value, field):
    result = transpile(edited(DYNAMIC_ROWS, SCALED).replace("VALUE", value), path="k.py")
    assert result.ok, error_messages(result)
    assert field in result.code
