"""`alpha > 0.0 and i == n - 1` with `alpha` a float parameter (followed both ways): at an iteration
but the last the right operand is False, so the whole test is False whichever way the left goes
(probe h97: the whole `and` was taken as unknown, and a store only the last task makes was
reported racing with the next task's load). Written the other way round it was accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "float_and_last.py")
TEST = "    if alpha > 0.0 and i == n - 1:\n"


@pytest.mark.parametrize("test", ["alpha > 0.0 and i == n - 1", "i == n - 1 and alpha > 0.0",
                                  "not alpha > 0.0 and i == n - 1", "(alpha > 0.0 or alpha < -1.0) and i == n - 1"])
def test_a_store_only_the_last_task_makes_is_accepted(test):
    text = edited(KERNEL, [(TEST, f"    if {test}:\n")])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    for n, alpha in ((1, 0.5), (3, 0.5), (3, -0.5)):
        report = verify(text, result.code, "kern", shapes={"a": (32 * n, 32), "out": (32 * n, 32)},
                        scalars={"d": 1, "alpha": alpha})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (n, alpha, report.rows)


@pytest.mark.parametrize("test", ["alpha > 0.0 and i == 0", "alpha > 0.0 or i == n - 1"])
def test_a_store_the_next_task_loads_is_refused(test):
    """Stored in the first task (or in every task when `alpha > 0.0`), loaded by the next one's cube stage."""
    messages = error_messages(transpile(edited(KERNEL, [(TEST, f"    if {test}:\n")]), path="k.py"))
    assert any("`pl.store` on MTE3 of AIV0 writes `ws[0:16, 0:32]`" in m and "`pl.load` on MTE2 of AIC reads `ws"
               in m for m in messages), messages
