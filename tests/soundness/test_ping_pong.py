"""A ping-pong index (`cur = 1 - cur`, `cur ^= 1`), the way hand-written double buffering picks
its ring entry and event ids, is followed as a value that flips between two values: its phase
is a counter `p = (p + 1) % 2` and the value the residue `a + (b - a) * p`. It was refused
(PTO077, "`cur` carries a value from one iteration to the next") in a loop of run-time trip
count, although `cur = (cur + 1) % 2` was proven. Defects in such kernels are still refused at
a count where the emulator shows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, hand_pipelined_over_blocks
from pto_transpile import codes, transpile
from sim_runtime import verify

HAND = hand_pipelined_over_blocks()
NAME = "hand_pipelined_kernel"
DRAIN = ("        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[my_n % 2])\n"
         "        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[(my_n + 1) % 2])\n")


def _ping_pong(flip: str = "cur = 1 - cur", other: str = "1 - cur", start: int = 0) -> str:
    """The hand-pipelined kernel over blocks with its beats picking ring entries and event ids
    by `cur` (this beat's) and `other` (the beat before's) instead of `t % 2` and `(t - 1) % 2`."""
    return edited(HAND, [
        ("    for t in pl.range(0, my_n + 1):\n        now = ring[t % 2]\n",
         f"    cur = {start}\n    for t in pl.range(0, my_n + 1):\n        now = ring[cur]\n"),
        ("event_id=EV_FREE[t % 2])\n                produce(", "event_id=EV_FREE[cur])\n                produce("),
        ("event_id=EV_FULL[t % 2])\n", "event_id=EV_FULL[cur])\n"),
        ("before = ring[(t - 1) % 2]\n", f"before = ring[{other}]\n"),
        ("event_id=EV_FULL[(t - 1) % 2])\n", f"event_id=EV_FULL[{other}])\n"),
        ("                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n",
         f"                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[{other}])\n"
         f"        {flip}\n"),
    ])


def _findings(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="hand.py").diagnostics if d.severity != "note"]


def _verdicts(text: str, tiles: int, blocks: int) -> str:
    rows = 32 * tiles
    # the kernel is its own serial reference: the first row is its run
    return verify(text, text, NAME, shapes={"a": (rows, 32), "out": (rows, 32)}, block_dim=blocks).rows[0].verdict


COUNTS = ((1, 1), (1, 2), (1, 5), (2, 4), (2, 7), (3, 7))


@pytest.mark.parametrize("flip, other, start", [
    ("cur = 1 - cur", "1 - cur", 0),
    ("cur ^= 1", "cur ^ 1", 0),
    ("cur = cur ^ 1", "1 ^ cur", 0),
    ("cur = 1 - cur", "1 - cur", 1),  # starting at the second entry
])
def test_a_ping_pong_index_is_proven_for_every_count_and_the_emulator_agrees(flip, other, start):
    text = _ping_pong(flip, other, start)
    assert _findings(text) == []
    assert [_verdicts(text, tiles, blocks) for blocks, tiles in COUNTS] == ["ok"] * len(COUNTS)


def test_a_drain_that_picks_its_event_ids_by_the_flip_after_the_loop_is_proven():
    text = edited(_ping_pong(), [(DRAIN, DRAIN.replace("my_n % 2", "cur").replace("(my_n + 1) % 2", "1 - cur"))])
    assert _findings(text) == []
    assert [_verdicts(text, tiles, blocks) for blocks, tiles in COUNTS] == ["ok"] * len(COUNTS)


@pytest.mark.parametrize("edits, verdicts", [
    # the vector cores wait for this beat's event instead of the one before's: a deadlock at some
    # counts only
    ([("event_id=EV_FULL[1 - cur])\n", "event_id=EV_FULL[cur])\n")], {"ok", "imbalance"}),
    # the drain waits twice for one id: the other's release is never taken
    ([(DRAIN, DRAIN.replace("my_n % 2", "cur").replace("(my_n + 1) % 2", "cur"))], {"imbalance"}),
    # the drain takes the second release only when the loop ends on an even beat: odd counts leave it
    ([(DRAIN, DRAIN.replace("my_n % 2", "cur").replace(
        "        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[(my_n + 1) % 2])\n",
        "        if cur == 0:\n"
        "            pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[1 - cur])\n"))],
     {"ok", "imbalance"}),
])
def test_a_defect_of_a_ping_pong_kernel_is_refused_and_the_emulator_shows_it(edits, verdicts):
    text = edited(_ping_pong(), edits)
    assert {code for code, _ in _findings(text)} == {codes.HAND_SYNC_UNSOUND}
    assert {_verdicts(text, tiles, blocks) for blocks, tiles in COUNTS} == verdicts


def test_a_flip_some_iterations_skip_is_refused_naming_it():
    # an extra flip every third beat: no period of two, and the emulator shows the imbalance
    text = edited(_ping_pong(), [("        cur = 1 - cur\n", "        cur = 1 - cur\n        if t % 3 == 2:\n"
                                                            "            cur = 1 - cur\n")])
    ((code, message),) = _findings(text)
    assert code == codes.HAND_SYNC_UNDECIDED and "`cur` steps by different amounts" in message, message
    assert "imbalance" in {_verdicts(text, tiles, blocks) for blocks, tiles in COUNTS}


def test_a_flip_by_a_value_known_only_at_run_time_stays_refused():
    text = edited(_ping_pong(), [("        cur = 1 - cur\n", "        cur = my_n - cur\n")])
    ((code, message),) = _findings(text)
    assert code == codes.HAND_SYNC_UNDECIDED and "`cur` carries a value from one iteration" in message, message


TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()


def test_a_stage_picking_a_slot_of_its_own_group_by_a_flip_is_proven_and_runs_as_the_serial_kernel():
    text = edited(TILED, [
        ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):\n    proj = proj_vec_db.next()\n"
         "    res = res_db.next()",
         "def finish(i, cur, sub_id, scale, out, proj_vec_db, res_db):\n    proj = proj_vec_db.next()\n"
         "    res = res_db[cur]"),
        ("    for i in pl.range(core_id, n_blocks, num_cores):\n",
         "    cur = 0\n    for i in pl.range(core_id, n_blocks, num_cores):\n"),
        ("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
         "            finish(i, cur, sub_id, tiling.scale, out, proj_vec_db, res_db)\n        cur = 1 - cur\n"),
    ])
    result = transpile(text, path="k.py")
    assert [d.code for d in result.diagnostics if d.severity == "error"] == []
    for blocks, rows in ((1, 160), (2, 96), (3, 224)):
        report = verify(text, result.code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                        scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=blocks)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], (blocks, rows)
