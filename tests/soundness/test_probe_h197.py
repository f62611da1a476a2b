"""Probe h197: a pipeline loop under a test of data inside an outer loop (a per-head mask read from
GM, in the loop over heads) was refused with the help to return early before the loop, which would
end every later head. Inside another loop the help asks to run the pipeline loop every iteration
and test the value in the stages; around a loop of the kernel itself it still names the early return."""

from __future__ import annotations

from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile

LOOP = ("    for ki in pl.range(0, n_tiles):\n        with pl.section_cube():\n"
        "            mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)\n        with pl.section_vector():\n"
        "            scale_store(ki, sub_id, out, c_vec_db, y_db)\n")
PARAMS = ("    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n):",
          "    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    head_on: pl.Tensor[[8], pl.DT_INT32],\n"
          "    n_heads: pl.DT_INT32,\n):")


def test_a_masked_loop_inside_an_outer_loop_is_not_told_to_return():
    masked = "    for h in pl.range(0, n_heads):\n        if pl.getval(head_on, h % 8) != 0:\n" + "".join(
        f"        {line}\n" for line in LOOP.splitlines())
    errors = error_messages(transpile(edited(kernel("dynamic_rows.py"), [PARAMS, (LOOP, masked)]), path="k.py"))
    assert errors and "inside another loop, a `return` would end its later iterations too" in errors[0], errors


def test_a_loop_of_the_kernel_under_a_test_of_the_block_is_told_to_return_early():
    masked = ("    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    if core_id < n_heads:\n"
              + "".join(f"    {line}\n" for line in LOOP.splitlines()))
    errors = error_messages(transpile(edited(kernel("dynamic_rows.py"), [PARAMS, (LOOP, masked)]), path="k.py"))
    assert errors and "return early before the loop instead" in errors[0], errors
