"""Probe h86's holes: kernels `--check` accepted whose pipelined run raced on the emulator while
the serial run was ok.

A loop of run-time trip count over `n` leaves behind a value that says whether `n % 16 == 15`,
and the kernel hands it to the stage that then writes `ws` at task 14 for task 15 to read: the
race needs n = 31, past the bound the counts run to unless the class is known for a residue of
the count. The value hid where `Loops._values_after` did not look, a tuple (`t = (k + 1,)` in the
last iteration) or a function's default (`def g(x=k + 1)`), or was no value of the loop variable
at all: the outcome of a test of its residue (`flag = 1` where `(k + 1) % 16 == 15`), a plain
number. What a loop leaves is now rebound wherever it is held (`_left_within`), and a loop over a
count that another loop over the same count follows has its period joined to the count's
residues (`Uniform.left_periods`): whatever the first leaves may depend on the count's phase. A
`return` from inside such a loop (in a helper) left it past all of that, as `break` would: it is
refused as `break` is.
"""

from __future__ import annotations

import pytest
from test_probe_h83 import CALL, FINISH, PICK, PICKED

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

RACE = "writes `ws[0:16, 0:32]` while stage `project` (task 15)"
LOOP = "    n_blocks = a.shape[0] // BLOCK\n"
FLAG = "    if q % 16 == 15:\n        flag = 1\n    else:\n        flag = 0\n"


def _flagged(before: str) -> str:
    """workspace_pick.py whose vector stage writes `ws` at task 14 where `flag == 1`, the flag
    computed by `before` after the line binding `n_blocks`."""
    return edited(PICKED, [(FINISH, FINISH.replace("alpha)", "alpha, flag)")),
                           (PICK, "    if flag == 1 and i % 16 == 14:\n"
                                  "        pl.store(ws, res, [sub_id * HALF, 0])\n"),
                           (LOOP, LOOP + before), (CALL, CALL.replace("alpha)", "alpha, flag)"))])


LEFT = {
    "tuple": _flagged("    t = (0,)\n    for _k in pl.range(0, n_blocks):\n        if _k == n_blocks - 1:\n"
                      "            t = (_k + 1,)\n    q = t[0]\n" + FLAG),
    "default": _flagged("    def g(x=0):\n        return x\n    for _k in pl.range(0, n_blocks):\n"
                        "        if _k == n_blocks - 1:\n            def g(x=_k + 1):\n                return x\n"
                        "    q = g()\n" + FLAG),
    "test-outcome": _flagged("    flag = 0\n    for _k in pl.range(0, n_blocks):\n        flag = 0\n"
                             "        if (_k + 1) % 16 == 15:\n            flag = 1\n"),
}
HARMLESS = ("pl.store(ws, res, [", "pl.store(ws2, res, [")
#: the last value a helper returns from inside its loop (`return k + 1` in the last iteration)
RETURNED = _flagged("    def last(m):\n        for _k in pl.range(0, m):\n            if _k == m - 1:\n"
                    "                return _k + 1\n        return 0\n    q = last(n_blocks)\n" + FLAG)


@pytest.mark.parametrize("name", [pytest.param(name, marks=() if name == "test-outcome" else pytest.mark.campaign)
                                  for name in sorted(LEFT)])  # one by default, all in the campaign tier
@pytest.mark.campaign  # (slow: the default tier stays within five minutes on two cores)
def test_what_a_loop_leaves_wherever_it_is_held_is_run_in_each_class(name):
    [error] = error_messages(transpile(LEFT[name], path="k.py", preload=1))
    assert RACE in error, error
    assert error_messages(transpile(edited(LEFT[name], [HARMLESS]), path="k.py", preload=1)) == []


@pytest.mark.emulator
@pytest.mark.campaign  # a run of 31 tasks
def test_the_emulator_shows_the_race_of_a_test_outcome_at_31_tasks():
    text = LEFT["test-outcome"]
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    for n, verdict in ((15, "ok"), (31, "race")):
        rows = verify(text, code, "kern", path="k.py", shapes={"a": (32 * n, 32), "out": (32 * n, 32)},
                      scalars={"d": 1, "alpha": 0.5}).rows
        assert rows[0].verdict == "ok" and rows[1].verdict.startswith(verdict), (n, rows[1].verdict)


def test_a_return_from_inside_a_loop_of_run_time_trip_count_is_refused():
    # it left the loop past what the check does at a loop's end (probe h86)
    for text in (RETURNED, edited(RETURNED, [HARMLESS])):
        [error] = error_messages(transpile(text, path="k.py", preload=1))
        assert "`return` from inside a loop of run-time trip count" in error, error
