"""`i * d * BLOCK` of a scalar parameter `d` that bounds no loop: a stride known only at run time,
which the check does not follow for every value. It was called "a trip count (the flat index of a
tile grid)", with a help to address a grid in two dimensions, which there is not (probe h121)."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages
from pto_transpile import transpile

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")


def test_a_stride_given_as_a_parameter_is_named_a_stride():
    text = edited(ROWS, [("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])",
                          "    pl.store(out, res, [i * d * BLOCK + sub_id * HALF, 0])"),
                         ("def finish(i, sub_id, out, proj_vec_db, res_db):",
                          "def finish(i, d, sub_id, out, proj_vec_db, res_db):"),
                         ("            finish(i, sub_id, out, proj_vec_db, res_db)",
                          "            finish(i, d, sub_id, out, proj_vec_db, res_db)"),
                         ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
                          "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    d: pl.DT_INT32,\n")])
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "`i * d` multiplies a loop variable by a value known only at run time, a stride" in message, message
    assert "trip count (the flat index" not in message and "make the stride a compile-time constant" in message
