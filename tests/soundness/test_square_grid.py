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
