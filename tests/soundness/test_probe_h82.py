"""Probe h82's holes: kernels `--check` accepted whose pipelined run raced or overflowed on the
emulator while the serial run was ok.

- A residue of an outer loop's trip count (`m % 16`) taken only in a test's piece (`d == 7`): the
  runs at `d = 7` compared it only for roots whose period the check chose (an outer loop around
  one inner loop), not for this outer loop around two. Every run now holds every residue of a
  trip count it takes to the period its counts were chosen for (`Interpreter.run`).
- Loops over one count from different starts (`pl.range(0, n)`, then `pl.range(20, n)`, or
  `pl.range(0, n + 20)` first): the counts were run from the first loop's zero, and the other
  loop ran no task in any run. Each loop now keeps its own zero, and the counts run give each
  every count from it (`check._trip_configs`).
- Credits primed by a number a trip count chooses (`range(8 if n % 2 == 0 else 1)`), or by the
  scalar's value the discovery run took (3, not the first sample): runs that prime more than the
  counts were drawn for make the proof run again with the counts drawn for them (`_with_credits`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import credits_by_parameter, edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
PICKED = (KERNELS / "workspace_pick.py").read_text(encoding="utf-8")


def _outer(test: str) -> str:
    """workspace_pick.py inside `for r in pl.range(0, m)` (`m` from a second workspace's rows),
    around two inner loops, the vector stage storing to `ws` where `test` holds."""
    return edited(PICKED, [
        ("def finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha):",
         "def finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha, m):"),
        ("    pl.store({0: ws, 1: ws2}[i % 2], res, [sub_id * HALF, 0])  # the pick the tests replace\n",
         f"    pl.store(ws if {test} else ws2, res, [sub_id * HALF, 0])\n"),
        ("    ws2: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],", "    ws2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],"),
        ("""    for i in pl.range(0, n_blocks):
        with pl.section_cube():
            project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha)
""", """    m = ws2.shape[0] // BLOCK
    for r in pl.range(0, m):
        for _k in pl.range(0, n_blocks):
            pass
        for i in pl.range(0, n_blocks):
            with pl.section_cube():
                project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)
            with pl.section_vector():
                finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha, m)
""")])


PIECE = "d == 7 and m % 16 == 15"


@pytest.mark.campaign  # 3 s, the suite's time
def test_a_residue_of_an_outer_trip_count_taken_in_a_piece_only_is_refused():
    [error] = error_messages(transpile(_outer(PIECE), path="k.py", preload=1))
    assert "a residue `% 16` of `ws2.shape[0] // 32`, a trip count, is taken at some values" in error, error


@pytest.mark.emulator
def test_the_emulator_shows_the_piece_races_at_its_residue():
    text = _outer(PIECE)
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    for rows, verdict in ((448, "ok"), (480, "race")):  # m = 14, m = 15
        result = verify(text, code, "kern", path="k.py", shapes={"a": (128, 32), "out": (128, 32), "ws2": (rows, 32)},
                        scalars={"d": 7, "alpha": 0.5}).rows
        assert result[0].verdict == "ok" and result[1].verdict == verdict, [(r.verdict, r.message) for r in result]


#: workspace_pick.py storing to `ws` in every task: the vector stage of task i writes what the
#: cube stage of task i + 1 loads, a race the runs name once the pipeline loop runs two tasks
ALWAYS = PICKED.replace("    pl.store({0: ws, 1: ws2}[i % 2], res, [sub_id * HALF, 0])  # the pick the tests replace\n",
                        "    pl.store(ws, res, [sub_id * HALF, 0])\n")
LOOP = "    for i in pl.range(0, n_blocks):\n"
RACE = "writes `ws[0:16, 0:32]` while stage `project` (task 1)"


@pytest.mark.parametrize("first, loop", [("pl.range(0, n_blocks)", "pl.range(20, n_blocks)"),
                                         ("pl.range(0, n_blocks + 20)", "pl.range(0, n_blocks)"),
                                         ("pl.range(0, n_blocks)", "pl.range(0, n_blocks)")],
                         ids=["later start", "longer first", "one start"])
def test_each_loop_over_one_count_runs_its_own_counts(first, loop):
    # the counts were run from the first loop's start: from another start, the pipeline loop ran
    # no task in any run; now the counts run give each loop every count from its own start
    text = edited(ALWAYS, [(LOOP, f"    for _k in {first}:\n        pass\n    for i in {loop}:\n")])
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert RACE in error, error


@pytest.mark.emulator
def test_the_emulator_shows_the_later_start_races():
    text = edited(ALWAYS, [(LOOP, "    for _k in pl.range(0, n_blocks):\n        pass\n"
                                  "    for i in pl.range(20, n_blocks):\n")])
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    rows = verify(text, code, "kern", path="k.py", shapes={"a": (704, 32), "out": (704, 32)},
                  scalars={"d": 1, "alpha": 0.5}).rows
    assert rows[0].verdict == "ok" and rows[1].verdict == "race", [(r.verdict, r.message) for r in rows]


def test_a_loop_always_past_the_bound_is_refused_and_its_help_leads_to_a_proof():
    # `pl.range(0, n_blocks + 20)` alone: no count the check runs was left (an internal error before)
    text = edited(ALWAYS, [(LOOP, "    for i in pl.range(0, n_blocks + 20):\n")])
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert "a loop of `a.shape[0] // 32` + 20 iterations runs at least 20 at every size" in error, error
    # the help: counted to the size itself, the offset added to the variable: the race is named
    helped = edited(ALWAYS, [(LOOP, "    for j in pl.range(0, n_blocks):\n        i = j + 20\n")])
    [error] = error_messages(transpile(helped, path="k.py", preload=1))
    assert RACE in error, error


def test_a_loop_always_past_the_bound_in_a_kernel_without_scalars_is_refused_not_an_internal_error():
    text = edited(ALWAYS, [("def finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha):",
                            "def finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db):"),
                           ("    d: pl.DT_INT32,\n    alpha: pl.DT_FP32,\n", ""),
                           ("finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha)",
                            "finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db)"),
                           (LOOP, "    for i in pl.range(0, n_blocks + 20):\n")])
    result = transpile(text, path="k.py", preload=1)
    assert [d.code for d in result.diagnostics if d.severity == "error"] == ["PTO061"]
    assert "runs at least 20 at every size" in error_messages(result)[0]



CREDITS = credits_by_parameter()
#: the pipeline loop's count made a trip-count root before the credits are primed, and the
#: number of credits chosen by its parity
BY_PARITY = edited(CREDITS, [("    n = a.shape[0] // TILE\n",
                              "    n = a.shape[0] // TILE\n    for _k in pl.range(0, n):\n        pass\n")]).replace(
    "range(8 if d == 7 else 1)", "range(8 if n % 2 == 0 else 1)")


def test_credits_primed_by_a_number_the_trip_count_chooses_are_run_past():
    # the discovery run's 3 tasks are odd: one credit, and the counts were drawn for it; the runs
    # at even counts prime 8, and the proof runs again with the counts drawn for those
    assert BY_PARITY.count("for _c in range(8 if n % 2 == 0 else 1):") == 2
    brief = BY_PARITY.replace("    for _k in range(40):\n", "    for _k in range(1):\n")  # (test_probe_h81.BRIEF)
    assert brief != BY_PARITY
    [error] = error_messages(transpile(brief, path="k.py", preload=1))
    assert "more than 15 sets of event id 5 from AIC can be pending at once" in error, error


@pytest.mark.emulator
@pytest.mark.campaign  # 2 s of emulator, the suite's time
def test_the_emulator_overflows_at_an_even_count_only():
    code = transpile(BY_PARITY, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    for rows, verdict in ((800, "ok"), (768, "overflow")):  # 25 tiles, 24 tiles
        shapes = {"a": (rows, 32), "mid": (rows, 32), "out": (rows, 32)}
        result = verify(BY_PARITY, code, "kern", path="k.py", shapes=shapes, scalars={"d": 2}).rows
        assert result[0].verdict == "ok" and result[1].verdict.startswith(verdict), \
            [(r.verdict, r.message) for r in result]



def test_credits_primed_at_the_first_sample_of_a_scalar_are_run_past():
    # the discovery run takes every integer scalar at 3, not at the first sample (2)
    text = CREDITS.replace("range(8 if d == 7 else 1)", "range(8 if d == 2 else 1)").replace(
        "    for _k in range(40):\n", "    for _k in range(1):\n")
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert "more than 15 sets of event id 5 from AIC can be pending at once" in error and "d=2" in error, error
