"""Probe h118, on this stop's fresh code (module tiling data read through displays and `getattr`,
the least value of a declared count, loops counted to residues, the emulator in a child process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"


def _errors(text: str) -> list[str]:
    return [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_a_count_computed_from_a_residue_names_the_residue_and_its_fix_runs():
    """`pl.range(0, n_blocks - d % 4)` was "neither static nor a run-time value the check can name
    (one computed ... by `+`, `-`, `//`, `%` ...)", of a count made by those very forms."""
    text = kernel_text(KERNELS / "h118_residue_subtracted_count.py")
    (message,) = _errors(text)
    assert "the trip count of `pl.range(0, n_blocks - d % 4)` is computed from `d % 4`, a residue of a run-time " \
           "value" in message, message
    fixed = edited(text, [("i in pl.range(0, n_blocks - d % 4):", "i in pl.range(0, n_iter):"),
                          ("    d: pl.DT_INT32,\n", "    d: pl.DT_INT32,\n    n_iter: pl.DT_INT32,\n")])
    result = transpile(fixed, path="k.py")
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(fixed, result.code, "kern", shapes={"a": (160, 32), "out": (160, 32)},
                    scalars={"d": 3, "n_iter": 2})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_count_clamped_from_a_residue_of_a_sampled_scalar_names_the_residue():
    """`min(d % 4, 3)`: `d` is sampled there, not a trip-count root, and the residue of a sampled
    scalar got the general words, which list `%` among the forms the check follows."""
    text = edited(kernel_text(KERNELS / "h117_residue_trip_count.py"),
                  [("for i in pl.range(0, d % 4):", "for i in pl.range(0, min(d % 4, 3)):")])
    (message,) = _errors(text)
    assert "the trip count of `pl.range(0, min(d % 4, 3))` is computed from `d % 4`, a residue" in message, message


SHAPES = {"a": (96, 32), "out": (96, 32)}


@pytest.mark.parametrize("name, edits, scalars", [
    ("h117_unsigned_count_plus_one.py", [("    rounds: pl.DT_UINT8,", "    rounds: DT_UINT8,"),
                                         ("import pypto_pro.language as pl\n", "import pypto_pro.language as pl\n"
                                          "from pypto_pro.language import DT_UINT8\n")],
     {"rounds": 0}),
    ("h117_unsigned_count_plus_one.py", [("    rounds: pl.DT_UINT8,", "    rounds: U8,"),
                                         ("pl.range(0, rounds + 1)", "pl.range(0, rounds // 2 + 1)"),
                                         ("import pypto_pro.language as pl\n",
                                          "import pypto_pro.language as pl\n\nU8 = pl.DT_UINT8\n")], {"rounds": 1}),
    ("h118_unsigned_tiling_field.py", [], {"rounds": 0}),
    ("h118_clamped_gm_count.py", [], {}),
], ids=["dtype-imported-by-name", "dtype-alias-quotient", "tiling-field", "clamped-gm-read"])
def test_a_count_no_launch_makes_negative_is_not_run_below_zero(name, edits, scalars):
    """The least value a launch gives a count (probe h117's `rounds: pl.DT_UINT8`) is read through
    a dtype imported by name or bound to a module name, a quotient of such a count, a tiling-data
    field's dtype and a clamp `max(x, 0)`: each was run at -1 and refused as deadlocking there.
    Each runs as written."""
    text = edited(kernel_text(KERNELS / name), edits) if edits else kernel_text(KERNELS / name)
    assert _errors(text) == []
    report = verify(text, {"as written": text}, "hand_pipelined_kernel", shapes=SHAPES, scalars=scalars)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
