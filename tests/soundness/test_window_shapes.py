"""A window of a tensor of more than two dimensions whose middle dimension is known only at run
time is placed nowhere: the refusal says so, and its help leads to a proof (probe h88).

rows_two_stages.py inside a loop over a batch, storing `out[r, i * BLOCK + sub_id * HALF, 0]`
into an `out` of [pl.DYNAMIC, pl.DYNAMIC, BLOCK]: the check places such a window only where the
dimensions between the first and the last are static, so both stores reach all of `out`. The
refusal blamed "an offset computed from a value known only at run time" and asked for the
offsets the stores already had. It names the shape now; with the middle dimension static, as
its help says, the kernel is proven and runs as the serial one.
"""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
LOOP = ("    for i in pl.range(0, n_blocks):\n        with pl.section_cube():\n"
        "            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)\n"
        "        with pl.section_vector():\n            finish(i, sub_id, out, proj_vec_db, res_db)\n")
BATCHED = edited(ROWS, [
    ("def finish(i, sub_id, out, proj_vec_db, res_db):", "def finish(i, r, sub_id, out, proj_vec_db, res_db):"),
    ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])",
     "    pl.store(out, res, [r, i * BLOCK + sub_id * HALF, 0])"),
    ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],",
     "    out: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC, BLOCK], pl.DT_FP32],"),
    (LOOP, "    for r in pl.range(0, out.shape[0]):\n" + LOOP.replace("\n    ", "\n        ").replace(
        "    for i", "        for i", 1).replace("finish(i, sub_id", "finish(i, r, sub_id")),
])


def test_a_run_time_middle_dimension_is_named_with_a_help_that_leads_to_a_proof():
    result = transpile(BATCHED, path="k.py")
    errors = [d for d in result.diagnostics if d.is_error]
    assert errors and "`out` has 3 dimensions and one between the first and the last is known only at run time" \
        in errors[0].message, errors
    assert "static sizes between its first and its last" in errors[0].hint
    static = BATCHED.replace("    a: pl.Tensor[[pl.DYNAMIC, BLOCK]", "    a: pl.Tensor[[4 * BLOCK, BLOCK]").replace(
        "[[pl.DYNAMIC, pl.DYNAMIC, BLOCK]", "[[pl.DYNAMIC, 4 * BLOCK, BLOCK]")
    fixed = transpile(static, path="k.py")
    assert [d.message for d in fixed.diagnostics if d.is_error] == [] and fixed.code is not None
    report = verify(static, fixed.code, "kern", path="k.py", shapes={"out": (3, 128, 32)})
    assert [row.verdict for row in report.rows] == ["ok", "ok"]
