"""A GM access outside the loop of run-time trip count, at a place no loop moves, is named as
such, at its own line, with the barrier that lets the check judge it apart (probe h73). Before,
a store to `out` before the pipeline loop was refused as "`out` is written in a loop of
run-time trip count and `pl.store(out, pre, ...)` reaches past the stride the other accesses
keep", with the caret on `def kern(`: the store is in no loop. The refusal stays: the serial and
the pipelined kernel agree (the store and iteration 0's store run on one core and pipe, in that
order), but the check proves a loop for every trip count only from accesses that keep one
stride of it between two barriers."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime.verify import verify

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
BOUNDS = "    n_blocks = a.shape[0] // BLOCK\n"
SYNC = "    pl.system.sync_all()\n"


def _store(name: str) -> str:
    return (f"    with pl.section_vector():\n        {name} = res_db.current()\n"
            f"        pl.load({name}, w, [sub_id * HALF, 0])\n        pl.store(out, {name}, [sub_id * HALF, 0])\n")


BEFORE = edited(BASE, [(BOUNDS, _store("pre") + BOUNDS)])
AFTER = BASE + _store("post")
CASES = {
    "before": (BEFORE, "pre", "between the accesses of `out` before the loop and the loop"),
    "after": (AFTER, "post", "between the loop and the accesses of `out` after it"),
}


@pytest.mark.parametrize("where", CASES)
def test_an_access_outside_the_loop_is_named_where_it_is(where):
    text, name, between = CASES[where]
    [d] = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    store = f"pl.store(out, {name}, [sub_id * HALF, 0])"
    assert d.code == codes.PIPELINE_NOT_PROVEN
    assert f"`out` is written in a loop of run-time trip count, and `{store}`, {where} the loop, accesses it at a " \
           "place that does not move with the loop" in d.message, d.message
    assert f"to make it provable, put `pl.system.sync_all()` {between}" in d.message, d.message
    assert (d.line, d.column) == (text.splitlines().index(f"        {store}") + 1, 9)


def test_the_refused_kernel_runs_as_the_serial_one():
    code = transpile(BEFORE, path="k.py", _skip_rules=["PTO061"]).code
    assert code is not None
    shapes = {"a": (96, 32), "out": (96, 32), "w": (32, 32)}
    assert [r.verdict for r in verify(BEFORE, code, "kern", path="k.py", shapes=shapes).rows] == ["ok", "ok"]


@pytest.mark.parametrize("text", [edited(BEFORE, [(BOUNDS, SYNC + BOUNDS)]),
                                  AFTER.replace(_store("post"), SYNC + _store("post"))], ids=["before", "after"])
def test_the_barrier_the_message_names_lets_the_check_prove_it(text):
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    shapes = {"a": (96, 32), "out": (96, 32), "w": (32, 32)}
    assert [r.verdict for r in verify(text, result.code, "kern", path="k.py", shapes=shapes).rows] == ["ok", "ok"]


HEADS = (Path(__file__).parent / "kernels" / "head_epilogue_after_barrier.py").read_text(encoding="utf-8")
HEAD_BARRIER = "        pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"


@pytest.mark.parametrize("barrier", [True, False])
def test_an_access_the_loop_runs_again_after_is_not_told_to_take_a_barrier(barrier):
    """In an outer loop over heads, the load of each head's last tile after its pipeline loop: with
    the barrier the help asked for before, or without, the loop's next run follows the load with
    none between, and pipelined the last tasks of a head run after it (probe h212: the help asked
    for the `sync_all` the kernel had). It says to do the work in the last stage now."""
    text = HEADS if barrier else edited(HEADS, [(HEAD_BARRIER, "")])
    (found,) = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert "while a loop around both runs the loop again after it with no barrier between" in found.message, \
        found.message
    assert "do that work in the last stage, under a test of the loop's last iteration" in found.message
    assert "put `pl.system.sync_all()`" not in found.message
    assert found.line == text[:text.index("pl.load(e, ws,")].count("\n") + 1
