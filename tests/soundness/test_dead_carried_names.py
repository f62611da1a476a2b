"""A name the pipeline loop carries from one iteration to the next whose value reaches nothing
but names like it (`c, e = e, c` and no other read of `c` or `e` in the kernel) cannot change
what the kernel does, so it need not repeat as a counter does (`soundness/deadnames.py`). It
was refused with "make it a counter" (probe h148). The same swap read anywhere else (an offset,
a test, after the loop, a call's argument) is carried as before, and refused where it does not
repeat."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from pto_transpile.soundness.deadnames import dead_names
from sim_runtime import verify

KERNEL = (Path(__file__).parent / "kernels" / "dynamic_rows.py").read_text(encoding="utf-8")
LOOP = "    n_tiles = a.shape[0] // TILE\n    for ki in pl.range(0, n_tiles):\n"
CALL = "            scale_store(ki, sub_id, out, c_vec_db, y_db)\n"


def _swapped(read: str = "", after: str = "") -> str:
    """The kernel with `c` and `e` swapped at every iteration; `read` replaces the store's
    call (a read of them in the loop), `after` follows the loop."""
    return edited(KERNEL, [(LOOP, "    c = 0\n    e = 1\n" + LOOP),
                           (CALL, (read or CALL) + "        c, e = e, c\n" + after)])


@pytest.mark.parametrize("preload", [1, 2])
def test_a_swap_nothing_reads_is_proven_and_runs_as_the_serial_kernel(preload):
    text = _swapped()
    result = transpile(text, path="k.py", preload=preload)
    assert error_messages(result) == []
    for tiles in (1, 2, 3, 6):
        rows = (32 * tiles, 32)
        report = verify(text, result.code, "kernel", path="k.py", shapes={"a": rows, "out": rows})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (tiles, report.rows[-1].message)


def test_a_swap_read_by_a_stage_is_carried_and_refused():
    # `c` picks the rows the store writes: 0 and 1 in turn, a value the check must see repeat
    text = _swapped(read="            scale_store(ki + c, sub_id, out, c_vec_db, y_db)\n")
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "`c` carries a value from one iteration to the next" in errors[0], errors


def test_a_swap_read_after_the_loop_is_carried_and_refused():
    text = _swapped(after="    with pl.section_vector():\n        y = y_db.next()\n"
                          "        pl.store(out, y, [c * TILE, 0])\n")
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "`c` carries a value from one iteration to the next" in errors[0], errors


@pytest.mark.parametrize(("code", "dead"), [
    ("c, e = e, c", {"c", "e"}),
    ("c = c + e", set()),  # an operator may raise, or decide what runs: only moves between names are dead
    ("c, e = [e, c][0], c", set()),  # a subscript
    ("c, e = e, f(c)", set()),  # a call may do anything with the value
    ("c = e > 3 and g()", {"c"}),  # `e` decides whether `g` runs (probe h151): live; `c` is read by nothing
    ("c, e = e, c\n    g(e)", set()),  # `e` read by a call, `c` feeding it
    ("c, e = e, c\n    t[c] = 1", set()),  # a subscript target reads its index
    ("c, e = e, c\n    print(locals())", set()),
])
def test_which_names_are_dead(code, dead):
    src = f"def k(t):\n    c = 0\n    e = 1\n    {code}\n"
    assert dead_names(src) == frozenset(dead)
