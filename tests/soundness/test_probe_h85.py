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
"""

from __future__ import annotations

import pytest
from test_probe_h83 import CLASS_RACE, PER_CORE_CLASS

from helpers import edited, error_messages
from pto_transpile import transpile
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


@pytest.mark.parametrize(("text", "task"), [(LEAKED, 15), (LAST, 15), (FROM_FALSE, 15), (FROM_ZERO_TIMES, 15),
                                            (PER_CORE, 1), (SOME_ITERATIONS, 1)],
                         ids=["loop-variable", "last-value", "from-false", "from-zero-times", "per-core",
                              "some-iterations"])
def test_a_value_a_loop_left_behind_is_one_of_its_count(text, task):
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert f"{RACE}{task})" in error, error


@pytest.mark.parametrize("text", [LEAKED, LAST, FROM_FALSE, PER_CORE, SOME_ITERATIONS],
                         ids=["loop-variable", "last-value", "from-false", "per-core", "some-iterations"])
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
