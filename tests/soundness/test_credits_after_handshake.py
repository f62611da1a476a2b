"""Credits a core primes after a first handshake, at one value of a scalar only: the vector
cores wait for the cube once, then raise `range(8 if d == 7 else 1)` sets the cube takes back
after the loop. The check counted only the sets raised before a core's first wait, so the runs
at `d = 7` kept the trip counts drawn for one credit; each credit lets the cube run a task
further ahead, and at 24 tiles its own event 5 overflows. Sets in a row outside the stages count
as credits wherever they come (`check._primed_ahead`)."""

from __future__ import annotations

import pytest

from helpers import credits_by_parameter, edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

HANDSHAKE = edited(credits_by_parameter(), [(
    "    with pl.section_vector():\n        for _c in range(8 if d == 7 else 1):\n",
    "    with pl.section_cube():\n        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=7)\n"
    "    with pl.section_vector():\n        pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=7)\n"
    "        for _c in range(8 if d == 7 else 1):\n")])
#: one relu a task, not 40: the check's counts do not depend on how long a stage runs
BRIEF = HANDSHAKE.replace("    for _k in range(40):\n", "    for _k in range(1):\n")
CHOSEN = "range(8 if d == 7 else 1)"


@pytest.mark.parametrize("preload", [1, 2])
def test_credits_primed_after_a_handshake_at_one_value_are_run_past(preload):
    assert BRIEF != HANDSHAKE
    [error] = error_messages(transpile(BRIEF, path="k.py", preload=preload))
    assert "more than 15 sets of event id 5 from AIC can be pending at once" in error and "d=7" in error, error


def test_as_many_credits_for_every_value_is_proven():
    text = BRIEF.replace(CHOSEN, "range(1)")
    assert text.count("for _c in range(1):") == 2
    assert error_messages(transpile(text, path="k.py", preload=1)) == []


@pytest.mark.emulator
@pytest.mark.campaign  # two runs of 24 tiles, serial and pipelined
def test_the_emulator_overflows_at_the_value_that_primes_more():
    shapes = {"a": (768, 32), "mid": (768, 32), "out": (768, 32)}
    code = transpile(HANDSHAKE, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    for d, verdict in ((1, "ok"), (7, "overflow")):
        rows = verify(HANDSHAKE, code, "kern", path="k.py", shapes=shapes, scalars={"d": d}).rows
        assert rows[0].verdict == "ok" and rows[1].verdict.startswith(verdict), (d, rows[1].verdict)
