"""A GM place a loop of run-time trip count writes again, at a place that does not move with the
loop (probe h240). The trip counts were drawn for hazards at most the ring's length apart; a store
at `ki % 8 == 7` and a load of the same place at `ki % 8 == 6`, on pipes nothing orders, first meet
7 tasks apart, at 15 tasks, past the 14 the check ran: accepted, it raced on the emulator from 15
tasks on. Such a loop is run with the window widened to its period."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import error_messages, kernel_text
from pto_transpile import codes, transpile
from sim_runtime import verify

KERNEL = Path(__file__).parent / "kernels" / "h240_gm_workspace_period.py"
READ_BACK = """    if ki % 8 == 6:
        pl.load(z, ws, [sub_id * HALF, 0])
        pl.add(y, c_vec, z)
    else:
        pl.relu(y, c_vec)
"""


def _shapes(tiles: int) -> dict:
    return {"a": (tiles * 16, 16), "out": (tiles * 16, 16), "ws": (16, 16)}


def test_a_workspace_read_back_a_period_later_is_refused():
    text = kernel_text(KERNEL)
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert "stage `scale_store` (task 14), `pl.load` on MTE2 of AIV0 reads `ws[0:8, 0:16]` while stage " \
           "`scale_store` (task 7), `pl.store` on MTE3 of AIV0 writes `ws[0:8, 0:16]`" in message, message
    assert "(shown with `a.shape[0] // 16` = 15)" in message, message


def test_the_refusal_is_a_race_on_the_emulator():
    text = kernel_text(KERNEL)
    code = transpile(text, path="k.py", preload=1, _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    assert [r.verdict for r in verify(text, code, "kernel", shapes=_shapes(14)).rows] == ["ok", "ok"]
    rows = verify(text, code, "kernel", shapes=_shapes(15)).rows
    assert [r.verdict for r in rows] == ["ok", "race"] and "GM tensor 'ws'" in rows[1].message, rows


def test_a_workspace_only_written_is_proven():
    """Stores of one place on one pipe follow each other however far apart: proven, and the
    emulator agrees at a count past the window."""
    text = kernel_text(KERNEL).replace(READ_BACK, "    pl.relu(y, c_vec)\n")
    result = transpile(text, path="k.py", preload=1)
    assert error_messages(result) == []
    assert [r.verdict for r in verify(text, result.code, "kernel", shapes=_shapes(17)).rows] == ["ok", "ok"]


def test_a_workspace_placed_on_one_side_only_is_refused():
    """A load of the workspace at a row read from GM (`pl.getval(idx, 0)`), a place the run does
    not place, and a store at a placed row: each list of accesses held one op, and neither showed a
    place met again, so the window stayed the ring's (probe h243: accepted, raced from 15 tasks)."""
    text = kernel_text(Path(__file__).parent / "kernels" / "h243_workspace_row_from_gm.py")
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert "stage `scale_store` (task 14), `pl.load` on MTE2 of AIV0 reads `ws`" in message, message
    assert "stage `scale_store` (task 7), `pl.store` on MTE3 of AIV0 writes `ws[0:8, 0:16]`" in message, message


@pytest.mark.parametrize("name, words", [
    # a running sum in a GM workspace, loaded and stored back at `ki % 8 == 7`: the pair of one
    # iteration in every run made, store of task 7 and load of task 15 at 16 tasks
    ("h244_ws_same_residue_read_modify_write", "stage `scale_store` (task 15), `pl.load` on MTE2 of AIV0 reads "
                                               "`ws[0:8, 0:16]` while stage `scale_store` (task 7), `pl.store`"),
    # a plain UB tile loaded at `ki % 8 == 7` after the `pl.add` reading it (V to MTE2 synced), read 8 tasks later
    ("h244_ub_tile_carried_period", "stage `scale_store` (task 15), `pl.add` on V of AIV0 reads `keep` while stage "
                                    "`scale_store` (task 7), `pl.load` on MTE2 of AIV0 writes `keep`"),
])
def test_a_place_met_again_within_one_iteration_is_refused(name, words):
    """Probe h244: a write and another op's access of one place in one iteration of the runs made
    meet across iterations in longer runs; accepted before, both raced on the emulator from 16 tasks."""
    text = kernel_text(Path(__file__).parent / "kernels" / f"{name}.py")
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert words in message, message


@pytest.mark.parametrize("name, words", [
    # the MTE2 -> V pair around the load: its set is issued before the load, so it orders nothing after it
    ("h246_closing_set_before_later_op", "stage `scale_store` (task 15), `pl.add` on V of AIV0 reads `keep` while "
                                         "stage `scale_store` (task 7), `pl.load` on MTE2 of AIV0 writes `keep`"),
    # the load in the loop body's own section, outside the stages, which the tiles were read off alone
    ("h246_body_code_plain_tile", "stage `scale_store` (task 14), `pl.add` on V of AIV0 reads `keep` while the kernel "
                                  "body at line 97, `pl.load` on MTE2 of AIV0 writes `keep`"),
    # the closing MTE2 -> V wait takes a set primed before the loop, not the one after the load (probe h247)
    ("h247_closing_wait_takes_primed_set", "stage `scale_store` (task 15), `pl.add` on V of AIV0 reads `keep` while "
                                           "stage `scale_store` (task 7), `pl.load` on MTE2 of AIV0 writes `keep`"),
    # pipelined by hand: one MTE2 -> V pair after the loop was taken to close every iteration's load (probe h247)
    ("h247_hand_drain_pair_closes_loop_tile", "the kernel body at line 41, `pl.add` on V of AIV0 reads `keep` while "
                                              "the kernel body at line 44, `pl.load` on MTE2 of AIV0 writes `keep`"),
])
def test_a_tile_handed_back_by_no_sync_after_its_later_op_is_refused(name, words):
    """Probes h246 and h247: each accepted, each raced on the emulator from 15, 16 or 32 tasks."""
    text = kernel_text(Path(__file__).parent / "kernels" / f"{name}.py")
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert words in message, message


def test_a_tile_handed_back_after_its_later_op_is_proven_as_the_help_says():
    """The help of such a refusal spoke of tile groups and of keeping both accesses in one stage,
    where they were (probe h246); it names the sync after the op, with which the kernel is proven."""
    text = kernel_text(Path(__file__).parent / "kernels" / "h244_ub_tile_carried_period.py")
    (found,) = [d for d in transpile(text, path="k.py", preload=1).diagnostics if d.is_error]
    assert found.hint.startswith("Make the stage's later tasks wait for this one"), found.hint
    load = "        pl.load(keep, a, [ki * TILE + sub_id * HALF, 0])\n"
    fixed = text.replace(load, load + "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, "
                                      "event_id=2)\n        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, "
                                      "wait_pipe=pl.PipeType.V, event_id=2)\n")
    assert fixed != text and error_messages(transpile(fixed, path="k.py", preload=1)) == []


def test_two_vector_cores_on_one_workspace_get_the_help_for_two_cores():
    """A load by AIV1 and a store by AIV0 of one workspace place, both in one stage: the help
    spoke of tile groups between stages and of keeping both accesses in one stage, where they were
    (probe h248). It names the two vector cores' parts."""
    text = kernel_text(Path(__file__).parent / "kernels" / "h248_two_cores_one_workspace.py")
    (found,) = [d for d in transpile(text, path="k.py", preload=1).diagnostics if d.is_error]
    assert "of AIV1" in found.message and "of AIV0" in found.message, found.message
    assert found.hint.startswith("Give each vector core its own part of the memory both share"), found.hint


def test_the_workspace_ordered_after_its_store_is_proven():
    """The fix the helps of these refusals name: a sync after the store, from its pipe (MTE3) to the
    load's (MTE2), orders every later task's load after it."""
    text = kernel_text(KERNEL)
    store = "        pl.store(ws, y, [sub_id * HALF, 0])\n"
    assert store in text
    fixed = text.replace(store, store + "        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe="
                         "pl.PipeType.MTE2, event_id=2)\n        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, "
                         "wait_pipe=pl.PipeType.MTE2, event_id=2)\n")
    result = transpile(fixed, path="k.py", preload=1)
    assert error_messages(result) == []
    assert [r.verdict for r in verify(fixed, result.code, "kernel", shapes=_shapes(17)).rows] == ["ok", "ok"]


def test_a_residue_taken_under_another_residue_test_is_named_not_called_a_rotation():
    """Probe h247: the closing pair under `if ki % 16 == 7:`, inside `if ki % 8 == 7:`, was refused
    as "a rotation of length 16", where nothing rotates; the refusal names the residue, and taking
    it in every iteration, as the message says, gets the race itself named."""
    text = kernel_text(Path(__file__).parent / "kernels" / "h244_ub_tile_carried_period.py")
    load = "        pl.load(keep, a, [ki * TILE + sub_id * HALF, 0])\n"
    pair = ("pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=2)\n            "
            "pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=2)\n")
    nested = text.replace(load, load + "        if ki % 16 == 7:\n            " + pair)
    assert nested != text
    (message,) = error_messages(transpile(nested, path="k.py", preload=1))
    assert "a period of 16 (`ki % 16`)" in message and "rotation" not in message.split(";")[0], message
    hoisted = text.replace("    if ki % 8 == 7:\n", "    r16 = ki % 16\n    if ki % 8 == 7:\n", 1) \
        .replace(load, load + "        if r16 == 7:\n            " + pair)
    assert hoisted.count("r16") == 2
    (message,) = error_messages(transpile(hoisted, path="k.py", preload=1))
    assert "reads `keep` while" in message, message
