"""Probe h118, on this stop's fresh code (module tiling data read through displays and `getattr`,
the least value of a declared count, loops counted to residues, the emulator in a child process)."""

from __future__ import annotations

from pathlib import Path

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
