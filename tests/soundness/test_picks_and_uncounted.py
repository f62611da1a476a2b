"""A tile picked by data, and a loop counted by data (probe h130).

- A pick among tiles of different memories put its op on the first choice's pipe: a move into a
  Vec or a Mat tile ran on MTE3 where the Mat tile was picked, reading a cross-core slot the V-pipe
  bwd set did not cover, and the pipelined kernel raced. Such a pick is refused; an `if` choosing
  the op is followed.
- A loop counted by data is followed for one pass, which stands for all only where no pass hands
  anything on: a tile group's cursor (`.next()`) is such state, which went unseen, and the slot a
  second pass reached, with the valid shape it set there, hid a write (the h128 pattern reached
  another way). A count of a truth value (`range(int(x > 0))`: 0 or 1 passes) hands nothing on,
  and a name a pass binds before it reads it takes nothing from the pass before: both refused
  before, both followed now.
- A store of a tile picked among groups of different auto_mutex ids holds only the ids every
  choice has: the refusal now says so, and names the `if` that each branch of holds its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"


def _kernel(name: str) -> str:
    return kernel_text(KERNELS / f"{name}.py")


@pytest.mark.parametrize("preload", [1, 2])
def test_a_pick_among_tiles_of_different_memories_is_refused(preload):
    (message,) = error_messages(transpile(_kernel("h130_pick_pipe"), path="k.py", preload=preload))
    assert "`dst` is one of tiles in Mat or Vec memory, picked by a value the check does not decide, so which " \
           "pipe `pl.move` runs on is not known" in message, message


def test_a_loop_counted_by_data_that_moves_a_cursor_is_refused():
    (message,) = error_messages(transpile(_kernel("h130_uncounted_cursor"), path="k.py", preload=1))
    assert "`for _ in range(2 * int(out_vec[0, 0] > 0.0))` runs a number of times the check cannot count, and one " \
           "iteration changes the cursor of tile group `head_db` for the next" in message, message


NEXT = _kernel("h130_uncounted_next")


@pytest.mark.parametrize("preload", [1, 2])
def test_a_loop_of_at_most_one_pass_is_proven_and_runs_as_the_serial_kernel(preload):
    result = transpile(NEXT, path="k.py", preload=preload)
    assert error_messages(result) == [] and result.code is not None
    for seed in (0, 1):
        rows = verify(NEXT, result.code, "pipeline_demo_kernel", path="k.py", seed=seed).rows
        assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message


def test_two_passes_of_it_are_refused():
    """`range(2 * int(...))`: two passes, the second picking the slot after the first's."""
    text = edited(NEXT, [("range(int(out_vec[0, 0] > 0.0))", "range(2 * int(out_vec[0, 0] > 0.0))")])
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert "changes the cursor of tile group `dbl_db` for the next" in message, message


PICK = _kernel("h130_pick_mutex")
PICKED = ("    k = int(out_vec[0, 0] > 0.0)\n    res = (dbl, tpl)[k]\n"
          "    pl.store(out, res, [ki * TILE + sub_id * TILE_HALF, 0])\n")


def test_a_store_of_a_tile_picked_among_mutex_groups_names_the_if():
    findings = [d for d in transpile(PICK, path="k.py", preload=2).diagnostics if d.is_error]
    assert findings, "refused"
    assert "uses a tile picked by a value the check does not decide, among tiles of different auto_mutex ids, and " \
           "holds only the ids every one of them has" in findings[0].message, findings[0].message
    assert "Choose between such tiles by an `if`" in findings[0].hint, findings[0].hint
    text = edited(PICK, [(PICKED, "    if out_vec[0, 0] > 0.0:\n"
                                  "        pl.store(out, tpl, [ki * TILE + sub_id * TILE_HALF, 0])\n    else:\n"
                                  "        pl.store(out, dbl, [ki * TILE + sub_id * TILE_HALF, 0])\n")])
    assert error_messages(transpile(text, path="k.py", preload=2)) == []


TUPLE_PICK = _kernel("h135_pick_by_data_tuple")
TUPLE = "        k = int(relu_vec[0, 0] > 0.0)\n        dst = (keep_vec, keep_mat)[k]\n"


def test_a_tile_chosen_by_data_in_a_choice_names_the_tuple_pick_that_is_proven():
    """`dst = keep_mat if x > 0 else keep_vec` is refused; the help named only a pick by the loop
    variable's residue, where the same choice as a pick of a tuple is proven (probe h135)."""
    assert error_messages(transpile(TUPLE_PICK, path="k.py", preload=2)) == []
    text = edited(TUPLE_PICK, [(TUPLE, "        dst = keep_mat if relu_vec[0, 0] > 0.0 else keep_vec\n")])
    (error,) = [d for d in transpile(text, path="k.py", preload=2).diagnostics if d.is_error]
    assert "as a pick of a tuple (`(a, b)[int(x > 0)]`)" in error.hint, error.hint
