"""Probe h80: kernels the check accepted whose pipelined form the emulator shows wrong.

- The author's own credits raised ahead before the pipeline loop (`for _ in range(8):
  set_cross_core(...)`) let the core that waits for them run as many tasks ahead in the
  generated kernel, where no tile group holds it back: with an event raised twice a task, 16
  sets were pending at 11 tiles, while the trip counts the check ran stopped at 7.
"""

from __future__ import annotations

import pytest
from test_probe_h79 import CREDITS, DRAIN, EVENT, HAND

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

SEVEN = "    pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=7)\n"
WAIT5 = "    pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=5)\n"
WAIT7 = "    pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=7)\n"
PRIME = "    with pl.section_vector():\n        pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=6)\n"


def _credited(credits: int) -> str:
    """hand_event_in_stages.py throttled by `credits` releases primed before the loop (and
    drained after it), its cube raising event 7 twice a task, its vector cores waiting twice."""
    text = edited(HAND, CREDITS) + DRAIN
    return edited(text, [
        (EVENT, EVENT + SEVEN + SEVEN), (WAIT5, WAIT5 + WAIT7 + WAIT7),
        (PRIME, f"    with pl.section_vector():\n        for _c in range({credits}):\n"
                "            pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=6)\n"),
        (DRAIN, f"    with pl.section_cube():\n        for _c in range({credits}):\n"
                "            pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=6)\n"),
    ])


@pytest.mark.parametrize("preload", [1, 2])
def test_credits_primed_ahead_widen_the_counts_the_check_runs(preload):
    [error] = error_messages(transpile(_credited(8), path="k.py", preload=preload))
    assert "more than 15 sets of event id 7 from AIC can be pending at once" in error, error


def test_fewer_credits_are_proven():
    assert error_messages(transpile(_credited(2), path="k.py", preload=1)) == []


@pytest.mark.emulator
def test_the_emulator_overflows_with_eight_credits_at_eleven_tiles():
    text = _credited(8)
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    rows = verify(text, code, "kern", path="k.py", shapes={n: (352, 32) for n in ("a", "mid", "out")}).rows
    assert rows[0].verdict == "ok" and rows[1].verdict.startswith("overflow"), [(r.verdict, r.message) for r in rows]
