"""Kernels a hostile probe (h70) found accepted and wrong: a kernel pipelined by hand that keeps
a beat counter in an entry of its own ring (`ring[0].cnt = ring[0].cnt + 1`) and drops a set
and its wait from the 14th beat on. The entries of a hand-written ring were never judged as
carried values (they carry each beat's values to a later beat by design, `now.row = ...`), so
the counter changed the syncs at a beat no run of the check reached; the emulator shows the
race from 16 tiles. The plain numbers such an entry keeps across beats are judged now, as a
`pl.struct` field's are; its per-beat values still pass."""

from __future__ import annotations

import pytest

from helpers import edited, hand_pipelined_over_blocks
from pto_transpile import codes, transpile
from sim_runtime import verify

HAND = hand_pipelined_over_blocks()
RING = ('    ring = pl.struct_array(2, "Beat", row=0)\n', '    ring = pl.struct_array(2, "Beat", row=0, cnt=0)\n')
ROW = "        now.row = (core_id + t * num_cores) * TILE\n"
SET = "                pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FULL[t % 2])\n"
WAIT = "                pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=EV_FULL[(t - 1) % 2])\n"


def _guarded(line: str, test: str) -> tuple[str, str]:
    return line, f"                if {test}:\n    {line}"


@pytest.mark.parametrize("count", [
    "        ring[0].cnt = ring[0].cnt + 1\n",
    "        ring[(t + 1) % 2].cnt = now.cnt + 1\n",  # handed from entry to entry
], ids=["in-place", "handed-on"])
def test_a_beat_counter_in_a_ring_entry_is_refused(count):
    cnt = "ring[0].cnt" if "ring[0]" in count else "now.cnt"
    text = edited(HAND, [RING, (ROW, ROW + count), _guarded(SET, f"{cnt} < 14"), _guarded(WAIT, f"{cnt} < 15")])
    findings = [(d.code, d.message) for d in transpile(text, path="hand.py").diagnostics if d.severity != "note"]
    ((code, message),) = findings
    assert code == codes.HAND_SYNC_UNDECIDED and ".cnt` carries a value from one iteration to the next" in message
    verdicts = [verify(text, text, "hand_pipelined_kernel", shapes={"a": (32 * n, 32), "out": (32 * n, 32)}).rows
                for n in (3, 20)]
    assert [[row.verdict for row in rows] for rows in verdicts] == [["ok", "ok"], ["ok", "race"]]


def test_per_beat_values_in_the_ring_entries_still_pass():
    assert [d.code for d in transpile(HAND, path="hand.py").diagnostics if d.severity != "note"] == []

