"""The syncs of a kernel pipelined by hand over a run-time number of tiles are proven for
every count, as production kernels need: its loop runs one beat more than there are tiles
(`pl.range(0, n + 1)`), its beats test `t < n` and `t >= 1`, and its drain picks event ids by
`n % 2`. It was "could not be checked" (PTO077): the constant in the loop's bound made the
whole `n + 1` the trip count, so `t < n` and `n % 2` were values the check could not decide.
Defects that show at some counts only are refused, at a count where the emulator shows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = (Path(__file__).parent / "kernels" / "hand_pipelined_rows.py").read_text()
NAME = "hand_pipelined_kernel"


def _findings(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="hand.py").diagnostics if d.severity != "note"]


def _verdicts(text: str, tiles: int) -> list[str]:
    rows = 32 * tiles
    return [row.verdict for row in verify(text, text, NAME, shapes={"a": (rows, 32), "out": (rows, 32)}).rows]


def test_the_syncs_are_proven_for_every_tile_count_and_the_emulator_agrees():
    assert _findings(KERNEL) == []
    for tiles in (1, 2, 3, 5):
        assert _verdicts(KERNEL, tiles) == ["ok", "ok"], tiles


RELEASE_EARLY = [("                consume(before.row, sub_id, out, x_db, r_db)\n"
                  "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n",
                  "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n"
                  "                consume(before.row, sub_id, out, x_db, r_db)\n")]
PRIME_ON_EVEN = [("        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n",
                  "        if n % 2 == 0:\n"
                  "            pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n")]


@pytest.mark.parametrize("edits, shown, bad, good, verdict", [
    # the vector cores release a tile before reading it: the cube overwrites it from 3 tiles on
    (RELEASE_EARLY, "= 3)", 3, 2, "race"),
    # the second release is primed for an even count only: odd counts never balance
    (PRIME_ON_EVEN, "= 1)", 1, 2, "imbalance"),
])
def test_a_defect_at_some_counts_only_is_refused_at_a_count_where_it_shows(edits, shown, bad, good, verdict):
    text = edited(KERNEL, edits)
    ((code, message),) = _findings(text)
    assert code == "PTO068" and message.endswith(f"(shown with `a.shape[0] // 32` {shown}"), message
    assert verdict in _verdicts(text, bad)
    assert _verdicts(text, good) == ["ok", "ok"]
