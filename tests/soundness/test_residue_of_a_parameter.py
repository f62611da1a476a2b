"""A value computed from a scalar parameter other than affinely (`d % 2`) and passed to a stage in
every iteration: each evaluation was a run-time value of its own, so a store offset by it in one
column block was said to be offset "differently" from itself, and refused with a hint to offset
every access the same way, which it was (probe h221). The same operation on the same operands is
one value now."""

from __future__ import annotations

import pytest

from helpers import DYNAMIC_ROWS, edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

STORE = "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"
EDITS = [("def scale_store(ki, sub_id, out, c_vec_db, y_db):",
          "def scale_store(ki, sub_id, shift, out, c_vec_db, y_db):"),
         (STORE, "    pl.store(out, y, [ki * TILE + sub_id * HALF, shift * TILE])\n"),
         ("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
          "    out: pl.Tensor[[pl.DYNAMIC, 2 * TILE], pl.DT_FP32],\n    d: pl.DT_INT32,\n"),
         ("            scale_store(ki, sub_id, out, c_vec_db, y_db)",
          "            scale_store(ki, sub_id, d % 2, out, c_vec_db, y_db)")]
KERNEL = edited(DYNAMIC_ROWS.read_text(encoding="utf-8"), EDITS)


@pytest.mark.parametrize(("rows", "d"), [(96, 0), (96, 1), (32, 3)])
def test_a_column_block_picked_by_a_residue_of_a_parameter_is_proven_and_verified(rows, d):
    result = transpile(KERNEL, path="k.py")
    assert error_messages(result) == []
    report = verify(KERNEL, result.code, "kernel", shapes={"a": (rows, 32), "out": (rows, 64)}, scalars={"d": d})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message

