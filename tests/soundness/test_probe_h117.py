"""Probe h117, on the argument for every trip count, per-core ranges, hand-written pipelines and
tiling keys."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"


def _errors(text: str) -> list[str]:
    return [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_an_unsigned_count_is_not_run_below_zero():
    """`pl.range(0, rounds + 1)` of an unsigned `rounds` runs at least once at every launch: the
    check no longer runs it at `rounds = -1` (no iteration, a wait without its set) and refuses
    the kernel as deadlocking there. It runs as written at the least and the greatest value."""
    text = kernel_text(KERNELS / "h117_unsigned_count_plus_one.py")
    assert _errors(text) == []
    for rounds in (0, 255):
        report = verify(text, {"as written": text}, "hand_pipelined_kernel", shapes={"a": (96, 32), "out": (96, 32)},
                        scalars={"rounds": rounds})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_signed_count_is_still_run_below_zero():
    text = edited(kernel_text(KERNELS / "h117_unsigned_count_plus_one.py"),
                  [("    rounds: pl.DT_UINT8,", "    rounds: pl.DT_INT8,")])
    assert any("deadlocks" in m and "`rounds` = -1" in m for m in _errors(text)), _errors(text)
