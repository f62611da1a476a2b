"""The syncs of a kernel pipelined by hand over a run-time number of tiles, spread over the
blocks, are proven for every count and block count, as production kernels need: each block
runs one beat more than it has tiles (`my_n = (n_blocks - core_id + num_cores - 1) //
num_cores`, `pl.range(0, my_n + 1)`), its beats test `t < my_n` and `t >= 1`, its tile is
`core_id + t * num_cores`, and its drain picks event ids by `my_n % 2`. It was "could not be
checked" (PTO077): the count mixed a tensor dimension with the block index, the constant in the
loop's bound made the whole `my_n + 1` the trip count, and `t * num_cores` multiplied two values
that vary. Defects that show at some counts or block counts only are refused, at a count where
the emulator shows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, hand_pipelined_over_blocks
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = hand_pipelined_over_blocks()
NAME = "hand_pipelined_kernel"


def _findings(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="hand.py").diagnostics if d.severity != "note"]


def _verdicts(text: str, tiles: int, blocks: int = 1) -> list[str]:
    rows = 32 * tiles
    return [row.verdict for row in verify(text, text, NAME, shapes={"a": (rows, 32), "out": (rows, 32)},
                                          block_dim=blocks).rows]


def test_the_syncs_are_proven_for_every_tile_and_block_count_and_the_emulator_agrees():
    assert _findings(KERNEL) == []
    for blocks, tiles in ((1, 1), (1, 2), (1, 5), (2, 4), (2, 7), (3, 1), (3, 7)):
        assert _verdicts(KERNEL, tiles, blocks) == ["ok", "ok"], (blocks, tiles)


RELEASE_EARLY = [("                consume(before.row, sub_id, out, x_db, r_db)\n"
                  "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n",
                  "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n"
                  "                consume(before.row, sub_id, out, x_db, r_db)\n")]
PRIME_ON_EVEN = [("        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n",
                  "        if my_n % 2 == 0:\n"
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
    assert code == "PTO068" and message.endswith(f"(shown with `(a.shape[0] // 32 - core_id + num_cores - 1) // "
                                                 f"num_cores` {shown}"), message
    assert verdict in _verdicts(text, bad)
    assert _verdicts(text, good) == ["ok", "ok"]


def test_a_residue_of_the_tile_index_times_the_block_count_is_refused():
    # `(t * num_cores) % 2` alternates with one block and is constant with two: the ring's
    # second entry is read but never written, and the vector cores store the wrong rows
    text = edited(KERNEL, [("now = ring[t % 2]", "now = ring[(t * num_cores) % 2]")])
    ((code, message),) = _findings(text)
    assert code == "PTO077" and "`(t * num_cores) % 2` takes a residue of a loop variable times the block " \
                                "count" in message
    assert _verdicts(text, 4, 1) == ["ok", "ok"]
    assert _verdicts(text, 4, 2)[0] == "race"  # two blocks store the same rows, even beat by beat


def test_a_defect_only_at_negative_counts_of_a_parameter_is_refused():
    # an extra release primed for even counts, consumed by the first beat: balanced at every count
    # from -1 (no beat) up, and unconsumed at -2, -4, ...: an empty loop is the same at every
    # count below it but for the residues the kernel takes of the count
    text = edited(KERNEL, [
        ("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
         "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    n: pl.DT_INT32,\n"),
        ("    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n", "    my_n = n\n"),
        ("        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n",
         "        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n"
         "        if my_n % 2 == 0:\n            pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=4)\n"),
        ("        with pl.section_cube():\n            if t < my_n:\n",
         "        with pl.section_cube():\n            if t == 0:\n                if my_n % 2 == 0:\n"
         "                    pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=4)\n            if t < my_n:\n"),
    ])
    findings = _findings(text)  # one per vector core whose release is never consumed
    assert {code for code, _ in findings} == {"PTO068"}
    assert all(m.endswith("are never waited for (shown with `n` = -2)") for _, m in findings), findings
    shapes = {"a": (64, 32), "out": (64, 32)}
    for n, verdicts in ((-2, ["imbalance"]), (-1, ["ok", "ok"]), (0, ["ok", "ok"]), (2, ["ok", "ok"])):
        report = verify(text, text, NAME, shapes=shapes, scalars={"n": n})
        assert [row.verdict for row in report.rows] == verdicts, (n, report.rows)


@pytest.mark.parametrize("edits, witness", [
    # `n + 2 <= 0` holds at n = -2 and not at n = -1: both loops are empty
    ([("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
       "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    n: pl.DT_INT32,\n"),
      ("    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n", "    my_n = n\n"),
      ("        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n",
       "        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n"
       "        if my_n + 2 <= 0:\n            pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=4)\n")],
     "`n` = -3"),
    # a loop to `n_blocks - 1` is empty at 1 and at 0 (an empty `a`)
    ([("    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n", "    my_n = n_blocks - 2\n"),
      ("    for t in pl.range(0, my_n + 1):\n", "    for t in pl.range(0, n_blocks - 1):\n"),
      ("        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n",
       "        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n"
       "        if n_blocks == 0:\n            pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=4)\n")],
     "`a.shape[0] // 32` = 0"),
], ids=["parameter", "dimension"])
def test_a_test_that_tells_empty_loops_apart_runs_each_side(edits, witness):
    """Each side of the test among the empty counts is run (it was refused as undecided, PTO077):
    the set the test guards is found never waited for, on both vector cores (said once, of both)."""
    findings = _findings(edited(KERNEL, edits))
    assert [code for code, _ in findings] == ["PTO068"], findings
    assert findings[0][1].endswith(f"1 set(s) of event id 4 from AIV0 and AIV1 to AIC are never waited for (shown "
                                   f"with {witness})"), findings


_CONSUMED = "                consume(before.row, sub_id, out, x_db, r_db)\n"
#: a probe's kernels, accepted before and wrong on the emulator from 16 tiles on only
#: one set of event 4 a beat, all waited for after the loop: the pending sets grow with the count
PENDING_GROWS = [(_CONSUMED, _CONSUMED + "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=4)\n"),
                 ("        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[(my_n + 1) % 2])\n",
                  "        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[(my_n + 1) % 2])\n"
                  "        for u in pl.range(0, my_n):\n"
                  "            pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=4)\n")]
#: an intra-core event id that is a residue of the beat, in range for 16 beats only
ID_PAST_RANGE = [(_CONSUMED, _CONSUMED + "".join(
    f"                pl.system.{op}(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=t % 20)\n"
    for op in ("sync_src", "sync_dst")))]


@pytest.mark.parametrize("edits, said", [
    (PENDING_GROWS, "every 2 iteration(s) of the loop over `t` raise 2 more sets of event id 4 from AIV0 to AIC "
                    "than they wait for"),
    (ID_PAST_RANGE, "event_id=t % 20)` uses event id 16 in one of the iterations the check runs, outside the "
                    "hardware's 0..15"),
])
def test_a_defect_that_shows_only_past_16_tiles_is_refused(edits, said):
    text = edited(KERNEL, edits)
    ((code, message),) = _findings(text)
    assert code == "PTO068" and said in message, message


@pytest.mark.parametrize("edits, verdict", [(PENDING_GROWS, "overflow"), (ID_PAST_RANGE, "error")])
def test_the_emulator_shows_the_defect_at_16_tiles_and_not_at_15(edits, verdict):
    text = edited(KERNEL, edits)
    assert _verdicts(text, 15) == ["ok", "ok"]
    assert any(v.startswith(verdict) for v in _verdicts(text, 17))


_LOOP = """    for ki in pl.range(0, n_tiles):
        with pl.section_cube():
            mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(ki, sub_id, out, c_vec_db, y_db)
"""
#: a probe's kernel, accepted before: dynamic_rows.py pipelined by hand where the cube raises event
#: 4 for the vector cores every beat and waits for nothing they raise, so it may run any number of
#: beats ahead (each period balances: one set, one wait)
UNTHROTTLED = edited((Path(__file__).parent / "kernels" / "dynamic_rows.py").read_text(), [
    ("@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))", "@pl.jit(auto_mutex=True)"),
    (_LOOP, _LOOP.split("\n")[0] + "\n"
     "        with pl.section_cube():\n"
     "            pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=4)\n"
     "        with pl.section_vector():\n"
     "            pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=4)\n"
     "            y = y_db.next()\n"
     "            pl.load(y, a, [ki * TILE + sub_id * HALF, 0])\n"
     "            pl.relu(y, y)\n"
     "            pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n")])


def test_a_sender_nothing_holds_back_is_refused_and_overflows_past_16_tiles():
    ((code, message),) = _findings(UNTHROTTLED)
    assert code == "PTO068" and "AIC raises event id 4 for AIV0 but never waits for anything AIV0 raises" in message
    verdicts = [[row.verdict for row in verify(UNTHROTTLED, UNTHROTTLED, "kernel", shapes={
        "a": (32 * tiles, 32), "out": (32 * tiles, 32)}).rows] for tiles in (15, 40)]
    assert verdicts[0] == ["ok", "ok"] and verdicts[1][1].startswith("overflow"), verdicts


RELEASE = "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n"


def test_an_event_id_bound_by_an_assignment_expression_where_it_is_used_is_proven():
    # `e := ...` binds `e` where it stands: read as carried from the iteration before, the syncs
    # were "not checked" (PTO077, probe h148), the same line as a plain assignment proven
    text = edited(KERNEL, [(RELEASE, "                pl.system.set_cross_core(pipe=pl.PipeType.V, "
                                     "event_id=(e := EV_FREE[(t - 1) % 2]))\n")])
    assert _findings(text) == []
    assert _verdicts(text, 7, 2) == ["ok", "ok"]


def test_an_event_id_read_before_an_assignment_expression_binds_it_is_followed_as_carried():
    # the release uses the id the beat before bound (an iteration's first read is of the last one's):
    # not taken as bound where the walrus stands, so the check follows it and finds the deadlock
    text = edited(KERNEL, [("    for t in pl.range(0, my_n + 1):\n",
                            "    e = EV_FREE[1]\n    for t in pl.range(0, my_n + 1):\n"),
                           (RELEASE, "                pl.system.set_cross_core(pipe=pl.PipeType.V, "
                                     "event_id=[e, (e := EV_FREE[t % 2])][0])\n")])
    assert [code for code, _ in _findings(text)] == ["PTO068"], _findings(text)
    assert _verdicts(text, 1) != ["ok", "ok"]


def test_a_sync_called_through_a_local_alias_given_an_item_of_a_module_list_is_proven():
    # a call given `EV_FREE[...]`, a number of a flat list, is not given the list: the list was taken
    # as one a call may change, "not a compile-time constant" (PTO077, probe h148)
    text = edited(KERNEL, [("    for t in pl.range(0, my_n + 1):\n",
                            "    sc = pl.system.set_cross_core\n    for t in pl.range(0, my_n + 1):\n"),
                           (RELEASE, "                sc(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n")])
    assert _findings(text) == []
    assert _verdicts(text, 7, 2) == ["ok", "ok"]
