"""A scalar access of GM (`pl.getval`, `pl.setval`, `t[i, j]`) reaches one element: the one its
linear offset names over the declared shape, row-major, as the hardware reaches it. Each task
of a pipeline may keep a flag or a statistic in its own element of a tensor that other
accesses never meet; an access of another task's element is ordered like any other."""

from __future__ import annotations

from pathlib import Path

import pytest
from variants import base, edit

from helpers import error_messages, kernel_text
from pto_transpile import codes, transpile
from pto_transpile.soundness.events import INF
from pto_transpile.soundness.opevents import OpEvents
from pto_transpile.soundness.values import UNKNOWN, TensorV


def _flags(read: str = "stats[ki, sub_id]", write: str = "stats[ki, sub_id] = 1.0", shape: str = "[N, 2]",
           n: str = "N") -> str:
    """`store_offset_param.py` with a tensor `stats` of `shape`: `fill_row` writes one element of it
    per task and vector core (`write`), `scale_store` adds the element `read` names to its tile.
    Pipelined, `fill_row` of task i + 1 runs before `scale_store` of task i."""
    return edit(base(),
                ("def fill_row(ki, sub_id, out, z_vec):\n",
                 f"def fill_row(ki, sub_id, out, stats, z_vec):\n    {write}\n"),
                ("def scale_store(ki, d, sub_id, out, c_vec_db, y_db):",
                 "def scale_store(ki, sub_id, out, stats, c_vec_db, y_db):"),
                ("    pl.relu(y, c_vec)\n", f"    pl.relu(y, c_vec)\n    v = {read}\n    pl.adds(y, y, v)\n"),
                ("pl.store(out, y, [(ki + d) * TILE + sub_id * HALF, 0])",
                 "pl.store(out, y, [ki * TILE + sub_id * HALF, 0])"),
                ("    d: pl.DT_INT32,\n", f"    stats: pl.Tensor[{shape}, pl.DT_FP32],\n"),
                ("fill_row(ki, sub_id, out, z_vec)", "fill_row(ki, sub_id, out, stats, z_vec)"),
                ("scale_store(ki, d, sub_id, out, c_vec_db, y_db)",
                 "scale_store(ki, sub_id, out, stats, c_vec_db, y_db)"),
                ("for ki in pl.range(0, N):", f"for ki in pl.range(0, {n}):"))


#: each task and vector core keeps its own element, spelled every way a scalar access is
OWN = {
    "subscript": {},
    "getval": {"read": "pl.getval(stats, ki * 2 + sub_id)", "write": "pl.setval(stats, ki * 2 + sub_id, 1.0)",
               "shape": "[2 * N]"},
}


@pytest.mark.parametrize("spelling", list(OWN))
@pytest.mark.parametrize("preload", [1, 2])
def test_each_task_keeping_its_own_element_is_proven(spelling, preload):
    text = _flags(**OWN[spelling]).replace("preload=1", f"preload={preload}")
    assert error_messages(transpile(text, path="flags.py")) == []


def test_an_element_of_the_next_task_is_refused_naming_it():
    # task i reads the element task i + 1 writes: serially after it, pipelined before it (the last
    # task the first's: `stats[N, ...]` is outside the tensor, which the check places nowhere)
    (message,) = error_messages(transpile(_flags(read="stats[(ki + 1) % N, sub_id]"), path="flags.py"))
    assert "`scale_store` (task 0), `getval` on S of AIV0 reads `stats[1, 0]`: in the serial kernel it sees no " \
           "write (the initial contents), in the pipelined kernel stage `fill_row` (task 1)" in message, message


_RUN_TIME = ("    stats: pl.Tensor[[N, 2]", "    n: pl.DT_INT32,\n    stats: pl.Tensor[[pl.DYNAMIC, 2]")


def test_a_run_time_number_of_tasks_each_with_its_own_element_is_proven():
    text = _flags(n="n").replace(*_RUN_TIME)
    assert error_messages(transpile(text, path="flags.py")) == []
    wrong = _flags(read="stats[ki + 1, sub_id]", n="n").replace(*_RUN_TIME)
    assert error_messages(transpile(wrong, path="flags.py")) != []


def test_an_element_that_cannot_be_placed_is_the_whole_tensor():
    # a linear offset into rows whose length is known only at run time: any element, so the
    # two cores' writes may meet
    text = _flags(read="pl.getval(stats, ki * 2 + sub_id)", write="pl.setval(stats, ki * 2 + sub_id, 1.0)",
                  shape="[N, pl.DYNAMIC]")
    messages = error_messages(transpile(text, path="flags.py"))
    assert messages and "`setval` on S of AIV1 writes `stats` while" in messages[0], messages
    assert "so the check takes every element" in messages[0], messages


@pytest.mark.parametrize("shape, index, foot", [
    ((4, 8), 19, (2, 3, 3, 4)),  # a linear offset over the declared shape, row-major
    ((4, 8), (2, 3), (2, 3, 3, 4)),  # a row and a column
    ((32,), 19, (19, 20, 0, 1)),  # a vector: one row
    ((4, UNKNOWN), 19, (0, INF, 0, INF)),  # rows of a length known only at run time: anywhere
    ((2, 4, 8), 19, (0, INF, 0, INF)),  # more dimensions than the footprints have
])
def test_the_element_a_linear_offset_names(shape, index, foot):
    placed, _ = OpEvents._element_foot(TensorV("t", shape, 4), index, False)
    assert (placed.r0, placed.r1, placed.c0, placed.c1) == foot


@pytest.mark.emulator
@pytest.mark.parametrize("read, same", [("stats[ki, sub_id]", True), ("stats[ki + 1, sub_id]", False)])
def test_the_emulator_agrees(read, same):
    from sim_runtime.verify import verify

    text = _flags(read=read)
    code = transpile(text, path="flags.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    rows = verify(text, code, "kernel", path="flags.py").rows
    assert (rows[-1].verdict == "ok") == same, [(r.verdict, r.message) for r in rows]


BY_BLOCK = kernel_text(Path(__file__).parent / "kernels" / "h133_linear_element_offset_by_block.py")


def test_a_linear_element_offset_by_the_block_names_the_row_and_column_form():
    """`pl.setval(ws, core_id * 4 + sub_id, v)` into a `[16, 4]` tensor: placed only as a number,
    the refusal blamed a `pl.min` of a `pl.DYNAMIC` dimension, which the kernel has none of (probe
    h133). It names the linear offset, and the help the row and column form, which is proven."""
    errors = [d for d in transpile(BY_BLOCK, path="k.py", preload=1).diagnostics if d.is_error]
    assert "(a linear element offset into the 2-D tensor `ws` that is not a number here)" in errors[0].message
    assert errors[0].hint.startswith("Name the element by its row and column"), errors[0].hint
    text = BY_BLOCK.replace("pl.setval(ws, core_id * 4 + sub_id, 1.0)", "ws[core_id, sub_id] = 1.0")
    assert text != BY_BLOCK
    assert [d.message for d in transpile(text, path="k.py", preload=1).diagnostics if d.is_error] == []
