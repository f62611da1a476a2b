"""Hand-pipelined kernels a probe found accepted and wrong on the emulator.

- A one-pipe barrier (`pl.system.bar_mte2()`) was taken to hold every pipe of the core until
  the pipe's earlier work is done. It holds only that pipe, whose ops run in order anyway: a
  load on MTE2, `bar_mte2()`, then a `pl.relu` of the tile on V race (the emulator's model too).
  Only `bar_all()` orders the pipes.
- Pending sets that grow with an outer loop of run-time trip count (one "done" event per
  repetition, all waited for after the last) were checked only per inner loop: the cube raised
  16 sets at 16 repetitions, past the hardware counter."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import error_messages
from pto_transpile import transpile


@pytest.mark.parametrize("name, words", [
    ("pipe_bar_orders_nothing.py", "`pl.relu` on V of AIV0 reads `x` while the kernel body at line 20, `pl.load` on "
                                   "MTE2 of AIV0 writes `x`, and nothing orders the two"),
    ("tiling_key_instance_bar.py", "`pl.load` on MTE2 of AIV0 writes `x`, and nothing orders the two (no set/wait "
                                   "pair, mutex or barrier between these pipes) (in the tiling-key instance "
                                   "LightSync=1; the instance LightSync=0 is proven)"),
    ("outer_loop_drift.py", "iteration(s) of the loop over `_h` raise 2 more sets of event id 4 from AIC to AIV0 than "
                            "they wait for"),
])
def test_the_hand_written_syncs_are_refused(name, words):
    result = transpile(kernel(name), path=name)
    messages = error_messages(result)
    assert "PTO068" in [d.code for d in result.diagnostics]
    assert any(words in m for m in messages), messages


def test_bar_all_orders_the_pipes():
    name = "pipe_bar_orders_nothing.py"
    text = kernel(name)
    assert "pl.system.bar_mte2()" in text and "pl.system.bar_v()" in text
    fixed = text.replace("pl.system.bar_mte2()", "pl.system.bar_all()").replace("pl.system.bar_v()",
                                                                                 "pl.system.bar_all()")
    assert error_messages(transpile(fixed, path=name)) == []


@pytest.mark.emulator
def test_the_emulator_races_where_the_check_refuses():
    from sim_runtime.verify import verify

    name = "pipe_bar_orders_nothing.py"
    text = kernel(name)
    report = verify(text, text, "bar_kernel", path=name)
    assert any(row.verdict == "race" for row in report.rows), [(r.verdict, r.message) for r in report.rows]
