"""Probe h81's holes: kernels `--check` accepted whose pipelined run overflowed or raced on the
emulator while the serial run was ok.

- Credits primed by a number a scalar chooses (`range(8 if d == 7 else 1)`): the trip counts
  were drawn from the credits of the discovery run at the first sample of `d`, and the runs at
  `d = 7` (a test's piece) kept them; each credit lets the cube run a task further ahead. The
  proof now runs again with the counts drawn for the most credits a run primed.
- A GM workspace picked from a dict by the loop variable itself (`{..., 20: ws, 21: ws2}[i]`):
  the key was this run's number, an entry per iteration followed only at the counts run, where
  a tuple's pick by the loop variable is refused.
- A list item set at the loop variable and read at a constant (`picks[i] = ws`, then
  `picks[20]`): the change was made at this run's number, and the read tested `i == 20`.
- A loop that is a per-core range at one value of a scalar only (`pl.range(core_id if d == 7
  else 0, ...)`): the runs at `d = 7` followed its count as the discovery run's, a whole count.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import credits_by_parameter, edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
CREDITS = credits_by_parameter()
#: the same kernel with one relu a task, not 40: the vector stage's length only makes the cube run
#: ahead in time on the emulator, where the check's counts do not depend on it
BRIEF = CREDITS.replace("    for _k in range(40):\n", "    for _k in range(1):\n")
CHOSEN = "range(8 if d == 7 else 1)"
PICKED = (KERNELS / "workspace_pick.py").read_text(encoding="utf-8")
PICK = "{0: ws, 1: ws2}[i % 2]"
#: `ws` at entry 20 alone: the vector stage of task 20 writes what the cube stage of task 21 loads
BY_INDEX = "{" + ", ".join(f"{k}: {'ws' if k == 20 else 'ws2'}" for k in range(22)) + "}[i]"


@pytest.mark.campaign  # the credits measure's paths run in test_probe_h83/h84 by default
def test_credits_primed_by_a_scalar_are_run_past_at_the_value_that_primes_more():
    assert BRIEF != CREDITS
    [error] = error_messages(transpile(BRIEF, path="k.py", preload=1))
    # the runs at `d = 7` prime 8 credits: the proof runs again with the counts drawn for them,
    # where the overflow the emulator shows is named
    assert "more than 15 sets of event id 5 from AIC can be pending at once" in error and "d=7" in error, error


def test_the_help_applied_is_proven():
    # as many credits for every value of `d`
    text = BRIEF.replace(CHOSEN, "range(1)")
    assert text.count("for _c in range(1):") == 2
    assert error_messages(transpile(text, path="k.py", preload=1)) == []


@pytest.mark.emulator
@pytest.mark.campaign  # the overflow at 24 tiles, serial and pipelined (test_probe_h82 runs one)
def test_the_emulator_overflows_at_the_value_that_primes_more():
    shapes = {"a": (768, 32), "mid": (768, 32), "out": (768, 32)}
    code = transpile(CREDITS, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    for d, verdict in ((2, "ok"), (7, "overflow")):
        rows = verify(CREDITS, code, "kern", path="k.py", shapes=shapes, scalars={"d": d}).rows
        assert rows[0].verdict == "ok" and rows[1].verdict.startswith(verdict), [(r.verdict, r.message) for r in rows]


@pytest.mark.parametrize("pick", [BY_INDEX, BY_INDEX.replace("}[i]", "}[i + 1]")], ids=["i", "i + 1"])
def test_a_dict_picked_by_the_loop_variable_is_refused(pick):
    [error] = error_messages(transpile(PICKED.replace(PICK, pick), path="k.py", preload=1))
    assert "the key `i" in error and "varies with a loop of run-time trip count" in error, error


def test_a_gm_offset_from_a_dict_by_the_loop_variable_is_refused():
    rows = "{" + ", ".join(f"{k}: {int(k == 20)}" for k in range(22)) + "}[i]"
    text = PICKED.replace(f"pl.store({PICK}, res, [sub_id * HALF, 0])",
                          f"pl.store(ws, res, [{rows} * BLOCK + sub_id * HALF, 0])")
    assert rows in text
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert "the key `i` varies with a loop of run-time trip count" in error, error


def test_a_dict_picked_by_the_loop_variables_residue_is_still_followed():
    [error] = error_messages(transpile(PICKED, path="k.py", preload=1))
    assert "writes `ws[0:16, 0:32]` while stage `project` (task 1)" in error, error
    apart = edited(PICKED, [("    pl.load(cur_w, ws, [0, 0])\n", "    pl.load(cur_w, a, [0, 0])\n")])
    assert error_messages(transpile(apart, path="k.py", preload=1)) == []


@pytest.mark.emulator
def test_the_emulator_shows_the_dict_pick_by_the_loop_variable_races():
    text = PICKED.replace(PICK, BY_INDEX)
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    rows = verify(text, code, "kern", path="k.py", shapes={"a": (704, 32), "out": (704, 32)},
                  scalars={"d": 1, "alpha": 0.5}).rows
    assert rows[0].verdict == "ok" and rows[1].verdict == "race", [(r.verdict, r.message) for r in rows]


#: the store's tensor from a list the stage changes: the tests replace the change and the read
CHANGED = "    picks = [ws2] * 22\n    picks[i] = ws\n    pl.store(picks[20], res, [sub_id * HALF, 0])\n"


def _changed(lines: str) -> str:
    old = f"    pl.store({PICK}, res, [sub_id * HALF, 0])  # the pick the tests replace\n"
    assert old in PICKED
    return PICKED.replace(old, lines)


@pytest.mark.parametrize("lines", [CHANGED, CHANGED.replace("picks[i] = ws", "del picks[i]")], ids=["set", "del"])
def test_a_list_changed_at_the_loop_variable_is_refused(lines):
    text = _changed(lines)
    assert lines in text
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert "the index `i` varies with a loop of run-time trip count" in error, error


def test_a_list_changed_at_the_loop_variables_residue_is_still_followed():
    # at even tasks the store goes to `ws`, which the cube stage of the next task loads
    text = _changed("    picks = [ws2, ws2]\n    picks[i % 2] = ws\n    pl.store(picks[0], res, [sub_id * HALF, 0])\n")
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert "writes `ws[0:16, 0:32]` while stage `project` (task 1)" in error, error


@pytest.mark.emulator
def test_the_emulator_shows_the_list_changed_at_the_loop_variable_races():
    text = _changed(CHANGED)
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    rows = verify(text, code, "kern", path="k.py", shapes={"a": (704, 32), "out": (704, 32)},
                  scalars={"d": 1, "alpha": 0.5}).rows
    assert rows[0].verdict == "ok" and rows[1].verdict == "race", [(r.verdict, r.message) for r in rows]


ROWS = (KERNELS / "rows_two_stages.py").read_text(encoding="utf-8")


#: a vector stage whose scale depends on the parity of the trip count: followed for a loop every
#: block runs whole, refused for a per-core range (each block's share has a parity of its own)
SPREAD = [("def finish(i, sub_id, out, proj_vec_db, res_db):\n",
           "def finish(i, n, sub_id, out, proj_vec_db, res_db):\n"),
          ("    pl.muls(res, proj, 0.5)\n", "    if n % 2 == 0:\n        pl.muls(res, proj, 0.5)\n    else:\n"
                                          "        pl.muls(res, proj, 2.0)\n"),
          ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
           "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    d: pl.DT_INT32,\n"),
          ("    for i in pl.range(0, n_blocks):\n",
           "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    num_cores = pl.get_block_num()\n"
           "    for i in pl.range(core_id if d == 7 else 0, n_blocks, num_cores if d == 7 else 1):\n"),
          ("finish(i, sub_id, out, proj_vec_db, res_db)\n", "finish(i, n_blocks, sub_id, out, proj_vec_db, res_db)\n")]


def test_a_loop_spread_over_the_blocks_at_one_value_of_a_scalar_is_refused():
    [error] = error_messages(transpile(edited(ROWS, SPREAD), path="k.py", preload=1))
    assert "at `d = 7`, the loop up to `a.shape[0] // 32` is a per-core range" in error, error


def test_the_same_loop_spread_whatever_the_scalar_names_the_parity():
    text = edited(ROWS, SPREAD).replace("core_id if d == 7 else 0", "core_id").replace(
        "num_cores if d == 7 else 1", "num_cores")
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert "takes a residue of `a.shape[0] // 32`, the trip count of a per-core range" in error, error


WORKSPACE = (KERNELS / "workspace_overflow.py").read_text(encoding="utf-8")


@pytest.mark.campaign  # the credits measure's paths run in test_probe_h83/h84 by default
def test_hand_written_credits_chosen_by_a_scalar_name_the_overflow_they_cause():
    # a hand-pipelined kernel: the runs at `d = 7` that show the overflow are named, not the
    # credits the trip counts were drawn for (deferred until no run shows another problem)
    text = edited(WORKSPACE, [("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n):",
                               "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    d: pl.DT_INT32,\n):")])
    text = text.replace("for _ in range(DEPTH):", "for _ in range(DEPTH if d == 7 else 2):")
    [error] = error_messages(transpile(text, path="k.py"))
    assert "more than 15 sets of event id 0 from AIC can be pending at once" in error and "d=7" in error, error


def test_the_loop_spread_whatever_the_scalar_is_proven():
    # the help applied to a kernel that takes no residue of the count: spread for every value of `d`
    text = edited(ROWS, [SPREAD[2], SPREAD[3]]).replace("core_id if d == 7 else 0", "core_id").replace(
        "num_cores if d == 7 else 1", "num_cores")
    assert "pl.range(core_id, n_blocks, num_cores)" in text
    assert error_messages(transpile(text, path="k.py", preload=1)) == []
