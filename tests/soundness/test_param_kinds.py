"""Every scalar a launch passes is proven for every value it can take. A probe of kernel
parameters found three ways around that, each accepted and wrong on the emulator:

- a parameter with a default (`shift: pl.DT_INT32 = 0`, `n: pl.DT_INT32 = 4`) was taken to be
  its default, although a launch may pass any value (and the default was read with the
  module's last binding of its name, not the one the `def` saw);
- a keyword-only parameter (`*, shift`) was not bound at all: the kernel read the module's
  name of the same spelling;
- a parameter declared wider than int32 (`pl.DT_INT64`, `pl.DT_UINT32`, `int`) was proven over
  int32's values only, so a test true only past 2**31 was never taken.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile

KERNELS = Path(__file__).parent / "kernels"
SQUARE = (KERNELS / "square_offset.py").read_text()
LATE = (KERNELS / "late_defect.py").read_text()

#: AIV1's half moved by `shift` rows: at shift = 16 it writes the rows AIV0 of the next task writes
SHIFTED = [
    ("def scale_store(ki, sub_id, out, c_vec_db, y_db):", "def scale_store(ki, sub_id, shift, out, c_vec_db, y_db):"),
    ("    pl.store(out, y, [ki * ki * TILE + sub_id * HALF, 0])",
     "    pl.store(out, y, [ki * TILE + sub_id * (HALF + shift), 0])"),
    ("            scale_store(ki, sub_id, out, c_vec_db, y_db)",
     "            scale_store(ki, sub_id, shift, out, c_vec_db, y_db)"),
]
N = "    n: pl.DT_INT32,\n"


def _shift(declared: str, module: str = "") -> str:
    """square_offset.py with the store moved by a parameter `shift` declared as `declared`
    (after `n`), and `module` lines after `HALF`."""
    text = edited(SQUARE, [*SHIFTED, (N, N + declared)])
    return edited(text, [("HALF = TILE // 2\n", "HALF = TILE // 2\n" + module)]) if module else text


SHIFTS = {
    "default": _shift("    shift: pl.DT_INT32 = 0,\n"),
    "default rebound": _shift("    shift: pl.DT_INT32 = SHIFT,\n", "SHIFT = HALF\n") + "\n\nSHIFT = 0\n",
    "keyword-only": _shift("    *,\n    shift: pl.DT_INT32,\n", "shift = 0\n"),
}

#: late_defect.py's `mark` changing the scale a later stage reads, in the first iteration when `test`
def _marked(test: str, param: str, declared: str | None) -> str:
    edits = [("def mark(ki, n, st):\n    if ki >= 40:\n", f"def mark(ki, {param}, st):\n    if {test}:\n"),
             ("            mark(ki, n, st)", f"            mark(ki, {param}, st)")]
    if declared is not None:
        edits.append((N, N + declared))
    return edited(LATE, edits)


WIDE = {
    "int64": _marked("ki == 0 and d > 3000000000", "d", "    d: pl.DT_INT64,\n"),
    "uint32": _marked("ki == 0 and d > 3000000000", "d", "    d: pl.DT_UINT32,\n"),
    "int": _marked("ki == 0 and d > 3000000000", "d", "    d: int,\n"),
}
DEFAULT_TRIPS = edited(_marked("ki == n - 1 and n == 13", "n", None),
                       [(N, "    n: pl.DT_INT32 = 4,\n")])


@pytest.mark.parametrize("preload", [1, 2])
@pytest.mark.parametrize("name", SHIFTS)
def test_a_parameter_is_proven_for_every_value_a_launch_passes(name, preload):
    (message,) = error_messages(transpile(SHIFTS[name], path="k.py", preload=preload))
    if name == "default rebound":  # the default Python took at the `def` is not the name's last value
        assert "reads `SHIFT` in a decorator, a parameter's default or an annotation" in message, message
        return
    assert "`pl.store(out, y, [ki * TILE + sub_id * (HALF + shift), 0])` reaches past the stride" in message, message


def test_a_trip_count_with_a_default_is_any_trip_count():
    (message,) = error_messages(transpile(DEFAULT_TRIPS, path="k.py", preload=1))
    assert "`n == 13` tests a trip count other than for the empty loop" in message, message


@pytest.mark.parametrize("name", WIDE)
def test_a_wide_parameter_is_proven_past_int32(name):
    (message,) = error_messages(transpile(WIDE[name], path="k.py", preload=1))
    assert "receives `scale` = 2.0 in the serial kernel but 1.0 in the pipelined one (shown with d=3000000001" \
        in message, message


def test_an_int32_parameter_stays_within_int32():
    # past int32's greatest value the test is never true: nothing to refuse
    text = _marked("ki == 0 and d > 3000000000", "d", "    d: pl.DT_INT32,\n")
    assert error_messages(transpile(text, path="k.py", preload=1)) == []


@pytest.mark.emulator
@pytest.mark.parametrize("name, shift, verdict", [("default", 16, "race"), ("default", 0, "ok"),
                                                  ("default rebound", None, "race"), ("keyword-only", 16, "race")])
def test_the_emulator_shows_the_shifted_halves_race(name, shift, verdict):
    from sim_runtime.verify import verify

    text = SHIFTS[name]
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    assert code is not None
    scalars = {"n": 5} if shift is None else {"n": 5, "shift": shift}
    report = verify(text, code, "kernel", path="k.py", shapes={"a": (160, 32), "out": (192, 32)}, scalars=scalars)
    assert [row.verdict for row in report.rows] == ["ok", verdict], [row.message for row in report.rows]


@pytest.mark.parametrize("declared", ["    d,\n", "    d: np.float32,\n", '    d: "float",\n'])
def test_a_parameter_not_declared_integer_may_hold_a_fraction(declared):
    # `0.25 < d < 0.75` holds for no integer: sampled as one, the defect behind it went unseen
    text = edited(LATE, [("def mark(ki, n, st):\n    if ki >= 40:\n", "def mark(ki, flag, st):\n    if flag:\n"),
                         ("            mark(ki, n, st)", "            mark(ki, ki == 0 and d > 0.25 and d < 0.75, st)"),
                         (N, N + declared)])
    if "np." in declared:
        text = edited(text, [("import pypto_pro.language as pl\n",
                              "import numpy as np\nimport pypto_pro.language as pl\n")])
    assert error_messages(transpile(text, path="k.py", preload=1))
