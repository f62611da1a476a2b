"""Probe h85's holes: kernels `--check` accepted whose pipelined run raced on the emulator while
the serial run was ok.

Each passes a value a loop of run-time trip count left behind to the stage that writes `ws` for
the next task to read where `n % 16 == 15` (test_probe_h83's class race): the loop variable read
after its loop, a name the body set from it (`q = k + 1`), a counter that started at `False` or at
`0 * d`, a counter of a per-core range. Each read as a value of the loop variable (or of its own
counter variable), periodic after the loop, so `q % 16` passed for a residue of a loop variable
and the counts were not run past the bound in each class of `n`: the race needs n = 31. What a
loop leaves behind is now a value of its count where it is affine in the variable alone, else a
run-time value of its own (`Loops._values_after`); a counter from `False` counts from 0. A
counter bumped in every iteration but the last was refused, valid, as taking its residue "at some
values only": at one task it never moved and was taken for the count times 0.

A `% k` counter or a flip was rebound to what its step gives over the count without a look at
the value the run left: a flip made twice per iteration (it never changes) or skipped in the last
one, a `% 32` counter stepping by 2 in the last iteration, a `% 32` counter from `False` (its
start taken one iteration late) were each read as another value of the count than they hold, and
a test on them true at every count was false in every run. A counter is now rebound only to the
value the run left (`Loops._counters_after`), else it is a run-time value of its own.
"""

from __future__ import annotations

import pytest
from test_probe_h83 import CALL, CLASS_RACE, FINISH, PER_CORE_CLASS, PICK, PICKED

from helpers import edited, error_messages
from pto_transpile import codes, transpile
from sim_runtime import verify

RACE = "writes `ws[0:16, 0:32]` while stage `project` (task "
LOOP = "    n_blocks = a.shape[0] // BLOCK\n"
ARGUMENT = "res_db, d, alpha, n_blocks)\n"


def _left(before: str, argument: str) -> str:
    """The class race with `n` passed as `argument`, computed by `before` after the line that
    binds `n_blocks`."""
    return edited(CLASS_RACE, [(LOOP, LOOP + before), (ARGUMENT, f"res_db, d, alpha, {argument})\n")])


LEAKED = _left("    for _k in pl.range(0, n_blocks):\n        pass\n", "_k + 1")
LAST = _left("    q = 0\n    for _k in pl.range(0, n_blocks):\n        q = _k + 1\n", "q")
FROM_FALSE = _left("    q = False\n    for _k in pl.range(0, n_blocks):\n        q = q + 1\n", "q")
FROM_ZERO_TIMES = _left("    q = 0 * d\n    for _k in pl.range(0, n_blocks):\n        q = q + 1\n", "q")
#: a counter bumped in every iteration but the last: no value of the count (probe h85's misleading
#: refusal, its residue taken "at some values only", of the one run whose counter never moved)
SOME_ITERATIONS = _left("    q = 0\n    for _k in pl.range(0, n_blocks):\n        if _k < n_blocks - 1:\n"
                        "            q = q + 1\n", "q + 1")
#: test_probe_h83's per-core class race, the block's count counted by a per-core range, the
#: pipeline a per-core range too, its tasks counted by `j`
PER_CORE = edited(PER_CORE_CLASS, [
    ("    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n    for j in pl.range(0, my_n):\n"
     "        i = core_id + j * num_cores\n",
     "    my_n = 0\n    for _t in pl.range(core_id, n_blocks, num_cores):\n        my_n = my_n + 1\n"
     "    j = 0\n    for i in pl.range(core_id, n_blocks, num_cores):\n"),
    ("alpha, core_id, my_n, j)\n", "alpha, core_id, my_n, j)\n        j = j + 1\n")])
#: the same stores into `ws2`, which nothing reads
HARMLESS = ("pl.store(ws, res, [", "pl.store(ws2, res, [")


CAMPAIGN = pytest.mark.campaign  # one form of each path runs by default (the suite's time)


@pytest.mark.parametrize(("text", "task"), [
    pytest.param(LEAKED, 15, id="loop-variable", marks=CAMPAIGN), pytest.param(LAST, 15, id="last-value"),
    pytest.param(FROM_FALSE, 15, id="from-false", marks=CAMPAIGN),
    pytest.param(FROM_ZERO_TIMES, 15, id="from-zero-times", marks=CAMPAIGN), pytest.param(PER_CORE, 15, id="per-core"),
    pytest.param(SOME_ITERATIONS, 15, id="some-iterations", marks=CAMPAIGN)])
def test_a_value_a_loop_left_behind_is_one_of_its_count(text, task):
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert f"{RACE}{task})" in error, error


@pytest.mark.parametrize("text", [
    pytest.param(LEAKED, id="loop-variable", marks=CAMPAIGN), pytest.param(LAST, id="last-value", marks=CAMPAIGN),
    pytest.param(FROM_FALSE, id="from-false", marks=CAMPAIGN), pytest.param(PER_CORE, id="per-core"),
    pytest.param(SOME_ITERATIONS, id="some-iterations", marks=CAMPAIGN)])
def test_the_same_kernels_are_proven_where_nothing_reads_what_they_write(text):
    assert error_messages(transpile(edited(text, [HARMLESS]), path="k.py", preload=1)) == []


@pytest.mark.emulator
@pytest.mark.campaign  # a run of 31 tasks
def test_the_emulator_shows_the_race_at_the_class_past_the_bound():
    code = transpile(LAST, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    for n, verdict in ((15, "ok"), (31, "race")):
        rows = verify(LAST, code, "kern", path="k.py", shapes={"a": (32 * n, 32), "out": (32 * n, 32)},
                      scalars={"d": 1, "alpha": 0.5}).rows
        assert rows[0].verdict == "ok" and rows[1].verdict.startswith(verdict), (n, rows[1].verdict)


def _picked(test: str, before: str, values: str) -> str:
    """workspace_pick.py whose vector stage writes `ws` at task 14 where `test` (of `n` and `z`)
    holds, the two computed by `before`, after the line binding `n_blocks`, and passed as `values`."""
    return edited(PICKED, [(FINISH, FINISH.replace("alpha)", "alpha, n, z)")),
                           (PICK, f"    if {test} and i % 16 == 14:\n        pl.store(ws, res, [sub_id * HALF, 0])\n"),
                           (LOOP, LOOP + before), (CALL, CALL.replace("alpha)", f"alpha, {values})"))])


FLIPS = "    f = 0\n    for _k in pl.range(0, n_blocks):\n"
MISREAD = {
    "flip-twice": _picked("n == 0 and z == 1", FLIPS + "        f = 1 - f\n        f = 1 - f\n    z = n_blocks % 2\n",
                          "f, z"),
    "flip-skipped-last": _picked("n != z", FLIPS + "        if _k < n_blocks - 1:\n            f = 1 - f\n"
                                 "    z = n_blocks % 2\n", "f, z"),
    "modulo-last-step": _picked("n == z", "    q = 0\n    for _k in pl.range(0, n_blocks):\n"
                                "        q = (q + (1 + (_k == n_blocks - 1))) % 32\n"
                                "    z = (n_blocks + 1) % 32\n", "q, z"),
    "modulo-from-false": _picked("n == z", "    q = False\n    for _k in pl.range(0, n_blocks):\n"
                                 "        q = (q + 1) % 32\n    z = n_blocks % 32\n", "q, z"),
}


@pytest.mark.parametrize("name", [pytest.param(name, marks=() if name == "flip-twice" else CAMPAIGN)
                                  for name in sorted(MISREAD)])
def test_a_counter_is_rebound_only_to_the_value_the_run_left(name):
    [error] = error_messages(transpile(MISREAD[name], path="k.py", preload=1))
    assert RACE in error, error
    assert error_messages(transpile(edited(MISREAD[name], [HARMLESS]), path="k.py", preload=1)) == []


def test_a_flip_from_true_is_no_internal_error():
    # `f = True` was never taken for a counter at its first value: a KeyError in a run of one task
    text = _picked("n == 1", "    f = True\n    for _k in pl.range(0, n_blocks):\n        f = 1 - f\n    z = 0\n",
                   "f, z")
    result = transpile(edited(text, [HARMLESS]), path="k.py", preload=1)
    assert codes.INTERNAL_ERROR not in {d.code for d in result.diagnostics}, result.diagnostics


def test_a_test_of_the_count_inside_a_loop_over_it_is_read_against_that_loop():
    # `n > 0` in a stage of `pl.range(0, n)` beside a loop to `n + 1`: true wherever it runs, and
    # refused with a help that was its own code
    text = edited(CLASS_RACE, [(LOOP, LOOP + "    for _k in pl.range(0, n_blocks + 1):\n        pass\n"),
                               ("    if n % 16 == 15 and i % 16 == 14:\n", "    if n > 0 and i % 16 == 14:\n")])
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert f"{RACE}15)" in error, error
    assert error_messages(transpile(edited(text, [HARMLESS]), path="k.py", preload=1)) == []


@CAMPAIGN  # (the stepped form below runs by default)
def test_a_python_range_over_a_run_time_count_is_named_so():
    text = edited(CLASS_RACE, [(LOOP, LOOP + "    for _k in range(n_blocks):\n        pass\n")])
    [error] = error_messages(transpile(edited(text, [HARMLESS]), path="k.py", preload=1))
    assert "loops with Python's `range`" in error and "`pl.range(n_blocks)`" in error, error
    applied = edited(text, [HARMLESS, ("for _k in range(n_blocks)", "for _k in pl.range(n_blocks)")])
    assert error_messages(transpile(applied, path="k.py", preload=1)) == []


@CAMPAIGN  # the suite's time
def test_a_python_range_with_a_step_over_a_run_time_count_is_named_so():
    # its help once said `pl.range(0, n, 2)`, which is refused for its step (probe h86)
    text = edited(CLASS_RACE, [(LOOP, LOOP + "    for _k in range(0, n_blocks, 2):\n        pass\n")])
    [error] = error_messages(transpile(edited(text, [HARMLESS]), path="k.py", preload=1))
    assert "loops with Python's `range`" in error and "`if (i - start) % step == 0:`" in error, error
    applied = edited(text, [HARMLESS, ("    for _k in range(0, n_blocks, 2):\n        pass\n",
                                       "    for _k in pl.range(0, n_blocks):\n        if _k % 2 == 0:\n"
                                       "            pass\n")])
    assert error_messages(transpile(applied, path="k.py", preload=1)) == []
