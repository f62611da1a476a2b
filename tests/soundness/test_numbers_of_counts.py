"""A number computed from a trip count by `float`, `min`, `max` or `abs` (`1.0 / max(n, 1)`, a mean's
scale guarded against an empty launch) is a run-time value, as `n * 1.0` is: usable as an op's
scalar, and a test on it is followed both ways (probe h97: refused as "the argument of `max`
varies with a loop of run-time trip count", a help that could not be applied). Of the loop
variable (`float(ki)`) it stays refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = (Path(__file__).parent / "kernels" / "trip_param.py").read_text(encoding="utf-8")
STORE = "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"


@pytest.mark.parametrize("scale", ["1.0 / max(n, 1)", "float(n)", "1.0 / min(n, 12)", "abs(n - 3) * 0.5"])
def test_a_number_of_the_trip_count_scales_a_tile(scale):
    text = edited(KERNEL, [(STORE, f"    pl.muls(y, y, {scale})\n" + STORE)])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    for n in (1, 4):
        report = verify(text, result.code, "kernel", shapes={"a": (32 * n, 32), "out": (32 * n, 32)},
                        scalars={"n": n})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (n, report.rows)


@pytest.mark.parametrize("test", ["max(n, 1) > 3", "float(n) > 3.5", "1.0 / max(n, 1) < 0.3", "min(n, 7) == 7"])
def test_a_racy_store_under_a_test_on_one_is_refused(test):
    """Both vector cores store their halves to the same rows under the test."""
    text = edited(KERNEL, [(STORE, STORE + f"    if {test}:\n        pl.store(out, y, [ki * TILE, 0])\n")])
    messages = error_messages(transpile(text, path="k.py"))
    assert any("`pl.store` on MTE3 of AIV0 writes `out[0:16, 0:32]`" in m for m in messages), messages


def test_of_the_loop_variable_it_stays_refused():
    text = edited(KERNEL, [(STORE, "    pl.muls(y, y, float(ki))\n" + STORE)])
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "the argument of `float` `float(ki)` varies with a loop of run-time trip count" in message, message
