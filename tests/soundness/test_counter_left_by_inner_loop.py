"""A counter stepped in a per-core range inside an outer loop (`tick = tick + 1` of every task a
block runs, `tick = 0` before both loops) starts each outer iteration at what the range left it at,
a value the check does not follow as a number. The refusal told its author to make it a counter
(`x = x + c`), which it is (probe h239); it names the inner loop and a form that is proven."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = Path(__file__).parent / "kernels" / "h237_tick_share_residue.py"


def _kernel(*more) -> str:
    return edited(kernel_text(KERNEL), [("INNER = 1201", "INNER = 7"), ("w_trip[tick % 3]", "w_trip[q % 3]"), *more])


def test_the_refusal_names_the_inner_loop_not_the_counter_form():
    (message,) = error_messages(transpile(_kernel(), path="k.py", preload=1))
    assert "`tick` carries a value from one iteration to the next" in message, message
    assert "to make it provable, count the iterations of the loop of run-time trip count inside this one with a " \
           "counter set before that loop (`j = 0`)" in message, message
    assert "make it a counter (`x = x + c`)" not in message, message


def test_the_counter_set_before_the_inner_loop_is_proven():
    text = _kernel(("    tick = 0\n    for q in pl.range(0, M):\n", "    for q in pl.range(0, M):\n        tick = 0\n"))
    result = transpile(text, path="k.py", preload=1)
    assert error_messages(result) == []
    shapes = {name: (3 * 32, 7 * 32) for name in ("a", "out")}
    report = verify(text, result.code, "kernel", shapes=shapes, block_dim=3)
    assert [row.verdict for row in report.rows] == ["ok", "ok"], report.rows
