"""A pipeline loop's `else:` runs after the drain, as it runs after the last iteration serially.

The loop never breaks (PTO059), so Python runs its `else:` once the loop is over. The output
kept the `else:` on the pipelined loop and put the drain, which runs the last tasks' delayed
stages, after it: the `else:` body read `out` before the last task's store, and the kernel
was refused as keeping tile state across iterations (probe h88). The body now follows the
drain, with the comments of the `else:` line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

ROWS = (Path(__file__).resolve().parents[1] / "soundness" / "kernels" / "rows_two_stages.py").read_text()
CALL = "            finish(i, sub_id, out, proj_vec_db, res_db)\n"
ELSE = ("    else:  # the last tile, once more\n"
        "        with pl.section_vector():\n"
        "            tail = res_db.next()\n"
        "            pl.system.bar_all()\n"
        "            pl.load(tail, out, [(n_blocks - 1) * BLOCK + sub_id * HALF, 0])\n"
        "            pl.store(last, tail, [sub_id * HALF, 0])\n")
KERNEL = edited(ROWS, [
    ("    a: pl.Tensor[[pl.DYNAMIC, BLOCK]", "    a: pl.Tensor[[4 * BLOCK, BLOCK]"),
    ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK]", "    out: pl.Tensor[[4 * BLOCK, BLOCK]"),
    ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
     "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    last: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"),
    (CALL, CALL + ELSE),
])


def test_the_else_body_follows_the_drain_and_the_kernel_runs_as_the_serial_one():
    result = transpile(KERNEL, path="k.py", preload=1)
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    code = result.code
    assert "else:  # the last tile" not in code
    assert code.index("for _pl_drain in") < code.index("    # the last tile, once more\n") \
        < code.index("        tail = res_db.next()\n")
    assert [row.verdict for row in verify(KERNEL, code, "kern", path="k.py").rows] == ["ok", "ok"]


NESTED = edited(ROWS, [
    ("HALF = BLOCK // 2\n", "HALF = BLOCK // 2\nGROUP = 4\n"),
    ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
     "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    last: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"),
    ("    n_blocks = a.shape[0] // BLOCK\n" + "    for i in pl.range(0, n_blocks):\n" + CALL.replace(
        "            finish", "        with pl.section_cube():\n            project(i, a, w_slot, a_l1_db, left_db, "
        "right_db, acc_db, proj_vec_db)\n        with pl.section_vector():\n            finish"),
     "    for g in pl.range(0, a.shape[0] // (GROUP * BLOCK)):\n        for j in pl.range(0, GROUP):\n"
     "            i = g * GROUP + j\n            with pl.section_cube():\n"
     "                project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)\n"
     "            with pl.section_vector():\n                finish(i, sub_id, out, proj_vec_db, res_db)\n"
     "        else:  # the group's last tile, once more\n            with pl.section_vector():\n"
     "                tail = res_db.next()\n                pl.system.bar_all()\n"
     "                pl.load(tail, out, [(g * GROUP + GROUP - 1) * BLOCK + sub_id * HALF, 0])\n"
     "                pl.store(last, tail, [g * BLOCK + sub_id * HALF, 0])\n"),
])


def test_a_nested_pipeline_loop_s_else_is_judged_as_what_follows_the_loop():
    """A nested loop's `else:` runs before the last tasks' delayed stages, which run on in the
    next outer iteration or the drain: refused, with the help for code after a nested pipeline
    loop (it had the help for state kept in a tile, probe h90)."""
    errors = [d for d in transpile(NESTED, path="k.py", preload=1).diagnostics if d.is_error]
    assert len(errors) == 1 and "Do what follows the pipeline loop in the last stage" in errors[0].hint, errors


#: the pipeline loop inside a loop over groups of row blocks, whose `else:` (once every group is
#: done) orders the cores and reads what the last task stored (probe h138)
STAGES = ("            with pl.section_cube():\n"
          "                project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)\n"
          "            with pl.section_vector():\n                finish(i, sub_id, out, proj_vec_db, res_db)\n")
OUTER_ELSE = ("    else:  # every group done\n"
              "        pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"
              "        with pl.section_vector():\n            tail = res_db.next()\n"
              "            pl.load(tail, out, [sub_id * HALF, 0])\n"
              "            pl.store(last, tail, [sub_id * HALF, 0])\n")
OUTER = edited(NESTED, [(NESTED[NESTED.index("        else:  # the group's last tile"):], OUTER_ELSE)])


def test_an_outer_loop_s_else_follows_the_drain_and_the_kernel_runs_as_the_serial_one():
    """It stayed on the outer loop, before the drain: the check refused the kernel asking for the
    `sync_all` the `else:` holds (and with `else: return`, for other event ids)."""
    for preload in (1, 2):
        result = transpile(OUTER, path="k.py", preload=preload)
        assert [d.message for d in result.diagnostics if d.severity != "note"] == [] and result.code is not None
        code = result.code
        assert "else:  # every group done" not in code
        assert code.index("for _pl_drain in") < code.index("    # every group done\n") \
            < code.index("    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n")
        for rows in (128, 384):
            report = verify(OUTER, code, "kern", path="k.py", shapes={"a": (rows, 32), "out": (rows, 32),
                                                                       "last": (32, 32)})
            assert [row.verdict for row in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("leave", ["        if g > 7:\n            break\n", "        if g > 7: break\n"],
                         ids=["on its own line", "on the test's line"])
def test_an_outer_loop_that_may_break_keeps_its_else(leave):
    """A `break` of the outer loop skips its `else:`: the body stays on the loop, and the check
    judges it where it runs, before the drain (refused here: it reads what the drain stores).
    A one-line `if g > 7: break` was missed (probe h141)."""
    text = edited(OUTER, [(STAGES, STAGES + leave)])
    result = transpile(text, path="k.py", preload=1, _skip_rules={"PTO061"})
    assert result.code is not None and "    else:  # every group done\n" in result.code
    assert result.code.index("    else:  # every group done\n") < result.code.index("for _pl_drain in")


def test_a_barrier_in_the_outer_loop_s_else_stands_between_two_loops():
    """PTO042 looked for the `sync_all` between the loops outside the first loop's statements,
    its `else:` included, and warned although it runs after the drain."""
    second = "    for k in pl.range(0, 2):\n" + STAGES.replace("            ", "        ", 4).replace("(i, ", "(k, ")
    warned = [d.code for d in transpile(OUTER + second, path="k.py", preload=1).diagnostics]
    assert "PTO042" not in warned, warned
    plain = edited(OUTER, [("        pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n", "")])
    assert "PTO042" in [d.code for d in transpile(plain + second, path="k.py", preload=1).diagnostics]
