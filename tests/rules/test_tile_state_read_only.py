"""PTO065 leaves alone a local group every stage only reads: filled before the loop, it holds
the same data for every iteration, whichever order the pipeline runs them in.

The demo's stage3 multiplying by B (`b_l1`, which stage1 reads too) was refused as "pipelined, it
would see another iteration's data" with the help to load B in every stage (probe h139). It is
proven now, and runs as the serial kernel; a stage that writes the group keeps the refusal.
"""

import pytest

from helpers import demo_text, edited
from pto_transpile import transpile
from sim_runtime import verify

SHARED = edited(demo_text(), [
    ("def stage3(ki, d_l1, p_mat_db,", "def stage3(ki, b_l1, p_mat_db,"),
    ("    \"\"\"Cube: mm2 = relu(mm1) @ D.\"\"\"\n    d_slot = d_l1.current()\n",
     "    \"\"\"Cube: mm2 = relu(mm1) @ B.\"\"\"\n    d_slot = b_l1.current()\n"),
    ("            stage3(ki, d_l1, p_mat_db,", "            stage3(ki, b_l1, p_mat_db,"),
])


@pytest.mark.parametrize("preload", [1, 2])
def test_a_group_every_stage_only_reads_is_proven_and_runs_as_the_serial_kernel(preload):
    result = transpile(SHARED, path="k.py", preload=preload)
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(SHARED, result.code, "pipeline_demo_kernel", path="k.py")
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_stage_that_writes_the_group_is_still_refused():
    """stage3 reloads B into the slot after using it: the next iteration's stage1 may read it
    before or after that, pipelined."""
    mm = "    pl.matmul(acc, left, right)\n    out_vec = out_vec_db.next()\n"
    text = edited(SHARED, [(mm, "    pl.matmul(acc, left, right)\n    pl.load(d_slot, b, [0, 0])\n"
                                "    out_vec = out_vec_db.next()\n"),
                           ("def stage3(ki, b_l1, p_mat_db,", "def stage3(ki, b, b_l1, p_mat_db,"),
                           ("            stage3(ki, b_l1, p_mat_db,", "            stage3(ki, b, b_l1, p_mat_db,")])
    codes = [d.code for d in transpile(text, path="k.py", preload=1).diagnostics if d.is_error]
    assert "PTO065" in codes, codes
