"""Two nested loops over one trip count (an n x n grid) whose inner stage takes a residue of its
own loop variable (`i % 4`): the runs are chosen for the inner loop's period too (probe h97: the
root's period was taken from the outer loop alone, and the run that measured 4 refused the kernel
with a help it already followed). A store in those tasks that the next task loads is found."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "square_grid.py")
EXTRA = "    if i % 4 == 3:\n        pl.store(ws2, res, [sub_id * HALF, 0])\n"


def test_a_residue_of_the_inner_loop_is_accepted_and_verified():
    result = transpile(KERNEL, path="k.py")
    assert error_messages(result) == []
    for n in (1, 4, 5):
        rows = 32 * n
        report = verify(KERNEL, result.code, "kern", shapes={"a": (rows, 32), "out": (rows, rows)},
                        scalars={"d": 1, "alpha": 0.5})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (n, report.rows)


@pytest.mark.parametrize("test, task", [("i % 4 == 3", 3), ("i % 3 == 1", 1)])
def test_a_store_the_next_task_loads_in_those_tasks_is_found(test, task):
    text = edited(KERNEL, [(EXTRA, f"    if {test}:\n        pl.store(ws, res, [sub_id * HALF, 0])\n")])
    messages = error_messages(transpile(text, path="k.py"))
    assert any(f"stage `project` (task {task + 1}), `pl.load` on MTE2 of AIC reads `ws[0:32, 0:32]` while stage "
               f"`finish` (task {task})" in m for m in messages), messages


@pytest.mark.campaign  # a few seconds each: in the campaign tier
def test_an_n_by_n_minus_one_grid_is_refused_naming_the_counts_and_its_fix_is_proven():
    """`pl.range(0, n_blocks - 1)` inside `pl.range(0, n_blocks)`: refused, as "loops that start from
    different values" with the fix "start them at the same value", which both already did (probe
    h102); the message names the counts, and the fix it names (a count of its own) is proven."""
    inner = "        for i in pl.range(0, n_blocks):\n"
    text = edited(KERNEL, [(inner, "        for i in pl.range(0, n_blocks - 1):\n")])
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "loops over `a.shape[0] // 32` run different numbers of iterations at one size (they run none from " \
           "`a.shape[0] // 32` = 0 and 1 on)" in message and "give the loop that runs fewer a count of its own " \
           "(another dimension, or a scalar parameter)" in message, message
    fixed = edited(KERNEL, [(inner, "        for i in pl.range(0, out.shape[1] // BLOCK - 1):\n")])
    result = transpile(fixed, path="k.py")
    assert error_messages(result) == []
    report = verify(fixed, result.code, "kern", shapes={"a": (96, 32), "out": (96, 96)}, scalars={"d": 1, "alpha": 0.5})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows
