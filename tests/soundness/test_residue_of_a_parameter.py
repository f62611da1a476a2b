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



#: the rows moved by the residue: `(ki + d % 2)`
ROWS = edited(KERNEL, [("[ki * TILE + sub_id * HALF, shift * TILE]", "[(ki + shift) * TILE + sub_id * HALF, 0]")])


def test_rows_moved_by_a_residue_of_a_parameter_are_told_to_pass_it():
    """Refused (the check follows `x % k` as a value repeating with the loop); the help was to keep
    residues apart from offsets, with no form that works (probe h221)."""
    (message,) = error_messages(transpile(ROWS, path="k.py"))
    assert "`(ki + shift)` adds a residue of a value known only at run time" in message, message


def test_the_residue_passed_as_a_parameter_is_proven_and_verified():
    text = edited(ROWS, [("    d: pl.DT_INT32,\n", "    d: pl.DT_INT32,\n    shift: pl.DT_INT32,\n"),
                         ("scale_store(ki, sub_id, d % 2, out,", "scale_store(ki, sub_id, shift, out,")])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    report = verify(text, result.code, "kernel", shapes={"a": (96, 32), "out": (128, 64)}, scalars={"d": 3, "shift": 1})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
