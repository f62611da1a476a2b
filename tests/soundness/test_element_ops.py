"""`pl.getval(t, i)` and `pl.setval(t, i, v)` on a GM tensor place their element as `t[i]` does:
the element index is judged by the rules for GM places, not refused as an operand that varies
with the loop (a probe found `pl.getval(idx, ki)` refused while `idx[ki]` was proven)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile

BASE = (Path(__file__).parent / "kernels" / "dynamic_rows.py").read_text()


def _elements(write: str) -> str:
    """dynamic_rows.py with the loop body reading `r = pl.getval(idx, ki)` and the vector stage
    writing `write` after its store."""
    return edited(BASE, [
        ("def scale_store(ki, sub_id, out, c_vec_db, y_db):",
         "def scale_store(ki, r, sub_id, idx, flags, out, c_vec_db, y_db):"),
        ("    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n",
         "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n" + write),
        ("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n):",
         "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    idx: pl.Tensor[[pl.DYNAMIC], pl.DT_INT32],\n"
         "    flags: pl.Tensor[[pl.DYNAMIC], pl.DT_INT32],\n):"),
        ("    for ki in pl.range(0, n_tiles):\n",
         "    for ki in pl.range(0, n_tiles):\n        r = pl.getval(idx, ki)\n"),
        ("            scale_store(ki, sub_id, out, c_vec_db, y_db)",
         "            scale_store(ki, r, sub_id, idx, flags, out, c_vec_db, y_db)"),
    ])


VALID = _elements("    pl.setval(flags, ki * 2 + sub_id, r)\n")
#: the next task's loop body reads the element this (delayed) stage writes
NEXT = _elements("    pl.setval(idx, ki + 1, r + 1)\n")
SHAPES = {"a": (96, 32), "out": (96, 32), "idx": (3,), "flags": (6,)}


@pytest.mark.parametrize("preload", [1, 2])
def test_an_element_index_that_moves_with_the_loop_is_proven(preload):
    assert error_messages(transpile(VALID, path="k.py", preload=preload)) == []


def test_an_element_the_next_task_reads_before_the_delayed_write_is_refused():
    assert error_messages(transpile(NEXT, path="k.py", preload=1))


@pytest.mark.emulator
@pytest.mark.parametrize("preload", [1, 2])
def test_the_emulator_runs_the_proven_kernel(preload):
    from sim_runtime.verify import verify

    code = transpile(VALID, path="k.py", preload=preload).code
    report = verify(VALID, code, "kernel", path="k.py", shapes=SHAPES)
    assert [row.verdict for row in report.rows] == ["ok", "ok"], [row.message for row in report.rows]
