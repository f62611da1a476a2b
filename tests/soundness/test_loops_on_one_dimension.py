"""Two pipeline loops bounded by different expressions of one `pl.DYNAMIC` dimension.

Such loops were refused ("the check cannot run both at every trip count"); they are run as if
their counts were independent, a superset of the pairs the dimension gives. The kernel is
the two_loops example with run-time rows: loop 1 counts `x.shape[0] // TILE` blocks, loop 2
`(x.shape[0] + TILE - 1) // TILE`. With the barrier between them it is accepted and verified
on the emulator; without it, loop 2 reads what loop 1 may not have written yet, and it is
refused."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

EXAMPLE = Path(__file__).parents[2] / "examples" / "two_loops.py"
BARRIER = "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"


def two_counts(barrier: bool = True) -> str:
    text = EXAMPLE.read_text()
    edits = [
        ("    x: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],", "    x: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],"),
        ("    mid: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],", "    mid: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],"),
        ("    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],", "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],"),
        ("    for i in pl.range(0, N):", "    for i in pl.range(0, x.shape[0] // TILE):"),
        ("    for j in pl.range(0, N):", "    for j in pl.range(0, (x.shape[0] + TILE - 1) // TILE):"),
    ]
    if not barrier:
        edits.append((BARRIER, ""))
    return edited(text, edits)


@functools.cache
def _proven():
    """The transpile of the kernel with its barrier (a proof of two run-time loops: seconds)."""
    return transpile(two_counts(), path="two_counts.py")


@pytest.mark.campaign  # the two counts are enumerated as independent: 256 runs, about 20 s of CPU
def test_loops_on_two_expressions_of_one_dimension_are_proven():
    assert error_messages(_proven()) == []


@pytest.mark.emulator
@pytest.mark.campaign  # needs the 256-run proof above
@pytest.mark.parametrize("rows", [96, 128])
def test_they_verify_on_the_emulator(rows):
    text = two_counts()
    code = _proven().code
    shapes = {"x": (rows, 32), "mid": (rows, 32), "out": (rows, 32)}
    report = verify(text, code, "two_loops_kernel", shapes=shapes)
    assert [row.verdict for row in report.rows] == ["ok", "ok"], report.rows


def test_without_the_barrier_they_are_refused_naming_the_missing_barrier():
    (message,) = error_messages(transpile(two_counts(barrier=False), path="no_barrier.py"))
    assert "`mid` is accessed by two loops that no `pl.system.sync_all()` of the cores accessing it" in message
    assert "put `pl.system.sync_all(core_type=pl.SyncCoreType.MIX)` between the loops" in message
