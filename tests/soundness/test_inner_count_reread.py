"""An inner pipeline loop whose count is computed anew in each iteration of the loop around it
(`cnt = min(pl.getval(lens, 0), 4)` inside `for b in pl.range(0, n)`): the check cannot tell the
counts are the same, and its refusal named the generated kernel's own task counter ("step
`_pl_task_id` by the same amount ... (in the generated kernel)", probe h121). It names the loop's
count and the fix, which is proven and runs as the serial kernel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
NESTED = edited(ROWS, [
    ("def finish(i, sub_id, out, proj_vec_db, res_db):", "def finish(i, b, sub_id, out, proj_vec_db, res_db):"),
    ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])",
     "    pl.store(out, res, [i * BLOCK + sub_id * HALF, b * BLOCK])"),
    ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
     "    out: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],\n    lens: pl.Tensor[[8], pl.DT_INT32],\n"
     "    n: pl.DT_INT32,\n"),
    ("""    for i in pl.range(0, n_blocks):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, out, proj_vec_db, res_db)
""", """    for b in pl.range(0, n):
        cnt = min(max(pl.getval(lens, 0), 0), 4)  # (each iteration reads it again)
        for i in pl.range(0, cnt):
            with pl.section_cube():
                project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
            with pl.section_vector():
                finish(i, b, sub_id, out, proj_vec_db, res_db)
""")])
HOISTED = edited(NESTED, [("    for b in pl.range(0, n):\n        cnt = min(max(pl.getval(lens, 0), 0), 4)  # (each "
                           "iteration reads it again)\n",
                           "    cnt = min(max(pl.getval(lens, 0), 0), 4)\n    for b in pl.range(0, n):\n")])


@pytest.mark.campaign  # a few seconds each: in the campaign tier
def test_a_count_read_anew_in_each_outer_iteration_is_refused_naming_the_loop_and_the_fix():
    (message,) = error_messages(transpile(NESTED, path="k.py"))
    assert "the pipeline loop runs different numbers of tasks in different iterations of the loop around it" in message
    assert "compute the pipeline loop's trip count once, before the loop around it" in message, message
    assert "_pl_" not in message and "generated kernel" not in message, message


@pytest.mark.parametrize("preload", [1, 2])
def test_the_count_read_once_is_proven_and_runs_as_the_serial_kernel(preload):
    result = transpile(HOISTED, path="k.py", preload=preload)
    assert error_messages(result) == []
    for length in (0, 3, 7):
        lens = np.zeros(8, dtype=np.int32)
        lens[0] = length
        report = verify(HOISTED, result.code, "kern", path="k.py", shapes={"a": (128, 32), "out": (128, 96)},
                        scalars={"n": 3}, tensors={"lens": lens})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (length, report.rows[-1].message)
