"""Probe h184: an element of a GM tensor named by a tuple with a row before the first,
`pl.getval(out, (-1, 0))`. The check placed it at row -1, apart from every store, while the
emulator took the index as Python does, wrapping to the last row: a cube stage reading what the
vector core stores in the last iteration was accepted (pipelined, it read it before the store),
and so was a `setval` at `(-1, 0)` beside a `getval` of the same element by its row. On hardware
the offset is linear, before the tensor's first element. The check places a tuple's element only
from row 0 on (below the row count where it is static), the whole tensor otherwise; the emulator
refuses a tuple index outside the tensor, as it refuses `t[-1, 0]`."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

STATIC = [("TILE = 32\n", "TILE = 32\nN_ITER = 4\n"),
          ("    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
           "    a: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
           "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n    carry: pl.Tensor[[N_ITER], pl.DT_FP32],\n")]
READS_LAST = STATIC + [
    ("@pl.jit(", "@pl.pipeline.stage\ndef carry_stage(ki, out, carry):\n    prev = pl.getval(out, INDEX)\n"
                 "    pl.setval(carry, ki, prev)\n\n\n@pl.jit("),
    ("            scale_store(ki, sub_id, out, c_vec_db, y_db)\n",
     "            scale_store(ki, sub_id, out, c_vec_db, y_db)\n        with pl.section_cube():\n"
     "            carry_stage(ki, out, carry)\n")]


@pytest.mark.parametrize("index", ["(-1, 0)", "(-1, 31)", "(N_ITER * TILE, 0)"])
def test_an_element_outside_the_rows_is_not_placed_apart_from_the_stores(index):
    text = edited(kernel("dynamic_rows.py"), READS_LAST).replace("INDEX", index)
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "`getval` on S of AIC reads `out`" in errors[0], errors


def test_an_element_by_its_row_is_still_placed():
    # the first row: stored by task 0, read by every task, so pipelined the read of task 0 is before the store
    text = edited(kernel("dynamic_rows.py"), READS_LAST).replace("INDEX", "(0, 0)")
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "reads `out[0, 0]`" in errors[0], errors


def test_the_emulator_refuses_a_tuple_index_outside_the_tensor():
    text = edited(kernel("dynamic_rows.py"), READS_LAST).replace("INDEX", "(-1, 0)")
    report = verify(text, {}, "kernel", shapes={"a": (128, 32), "out": (128, 32), "carry": (4,)})
    (row,) = report.rows
    assert row.verdict != "ok" and "outside GM tensor 'out'" in row.message, row
