"""Probe h203: a tuple picked by a bool (`(y, c_vec)[SKIP_RELU]` with the module flag `SKIP_RELU =
False`) was taken for a pick by a value the check does not decide, any of the tiles, and the valid
kernel was refused with races of tiles it never uses. Python indexes by a bool as by 0 or 1: the
check picks the tile, and a bool that depends on the loop variable is a test of it, judged as an
`if` on it is."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

PICK = ("    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n",
        "    res = (y, c_vec)[PICK]\n    pl.store(out, res, [ki * TILE + sub_id * HALF, 0])\n")


def _picked(by: str, flag: str = "") -> str:
    text = edited(kernel("dynamic_rows.py"), [PICK]).replace("PICK", by)
    return text.replace("\nTILE = ", f"\n{flag}TILE = ", 1) if flag else text


def test_a_false_flag_picks_the_first_tile():
    text = _picked("SKIP_RELU", "SKIP_RELU = False\n")
    result = transpile(text, path="k.py", preload=2)
    assert error_messages(result) == []
    for n in (3, 20):
        report = verify(text, result.code, "kernel", shapes={"a": (32 * n, 32), "out": (32 * n, 32)})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("by, flag", [("SKIP_RELU", "SKIP_RELU = True\n"), ("ki == 0", ""), ("bool(ki % 3)", ""),
                                      ("not ki % 5", "")])
def test_a_bool_that_picks_the_cross_core_slot_in_some_task_is_refused(by, flag):
    errors = error_messages(transpile(_picked(by, flag), path="k.py", preload=2))
    assert errors and "c_vec" in errors[0] and "y_db" not in errors[0], errors


def test_a_bool_of_a_test_the_check_cannot_prove_is_refused_as_an_if_on_it_is():
    errors = error_messages(transpile(_picked("ki >= 20"), path="k.py", preload=2))
    assert errors and "`ki >= 20` singles out iterations other than the first" in errors[0], errors
