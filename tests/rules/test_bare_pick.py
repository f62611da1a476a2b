"""A slot pick that is a statement of its own, `g.next()` to start a ring at its next slot, holds
no variable, as a pick inside a larger expression does (PTO023); it was reported as "inside a
larger expression (`g.next()`)", which it is not (probe h72). It is named as what it is, and
the hint, applied, gives a kernel that is proven and runs as the serial one."""

from __future__ import annotations

from helpers import demo_text, edited
from pto_transpile import codes, transpile
from sim_runtime import verify

LOOP = "    for ki in pl.range(0, N_ITER):\n"
SKIP = "    with pl.section_vector():\n        relu_vec_db.next()  # start at the second slot\n"
BARE = edited(demo_text(), [(LOOP, SKIP + LOOP)])


def test_a_bare_pick_is_named_as_a_pick_not_assigned():
    [d] = [d for d in transpile(BARE, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.BURIED_SLOT_PICK
    assert d.message == "`relu_vec_db.next()` takes a slot of `relu_vec_db` without assigning it to a name"
    assert "larger expression" not in d.message
    assert d.hint == "Assign the slot to a name, even one nothing reads: `skipped = relu_vec_db.next()`"


def test_the_hint_applied_gives_a_proven_kernel_that_runs_as_the_serial_one():
    fixed = edited(BARE, [("        relu_vec_db.next()", "        skipped = relu_vec_db.next()")])
    result = transpile(fixed, path="k.py")
    assert [d.code for d in result.diagnostics if d.is_error] == []
    assert [row.verdict for row in verify(fixed, result.code, "pipeline_demo_kernel").rows] == ["ok", "ok"]


def test_a_pick_inside_an_expression_keeps_its_words():
    buried = edited(BARE, [("        relu_vec_db.next()  # start", "        print(relu_vec_db.next())  # start")])
    [d] = [d for d in transpile(buried, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.BURIED_SLOT_PICK and "inside a larger expression" in d.message
