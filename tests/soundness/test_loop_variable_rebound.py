"""A loop's own variable is bound anew by the `for` at every iteration's start: what the body
makes of it (`i = n_blocks - 1 - i`, a reversed walk) is carried into no later iteration. The
check said it was (probe h73); a reversed walk over a run-time number of rows is still outside
what it proves for every count, and the message now names why: its offsets depend on the count."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import transpile
from sim_runtime.verify import verify

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
LOOP = "    for i in pl.range(0, n_blocks):\n"
REVERSED = edited(BASE, [(LOOP, LOOP + "        i = n_blocks - 1 - i\n")])
FIXED = edited(REVERSED, [(f"    {t}: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],",
                           f"    {t}: pl.Tensor[[5 * BLOCK, BLOCK], pl.DT_FP32],") for t in ("a", "out")])


def _errors(text: str) -> list[str]:
    return [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_a_reversed_walk_over_run_time_rows_is_refused_for_its_offsets_not_for_a_carried_value():
    [message] = _errors(REVERSED)
    assert "carries a value" not in message, message
    assert "reaches GM at an offset that depends on `a.shape[0] // 32`, the trip count of a loop" in message, message


def test_a_reversed_walk_over_fixed_rows_is_proven_and_runs_as_the_serial_kernel():
    result = transpile(FIXED, path="k.py")
    assert _errors(FIXED) == [] and result.code is not None
    assert [r.verdict for r in verify(FIXED, result.code, "kern", path="k.py").rows] == ["ok", "ok"]
