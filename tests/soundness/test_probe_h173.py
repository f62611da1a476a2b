"""Probe h173: a stage bounding a loop by `int(p * 2)` typed the ctx field carrying `p` an
integer, while `p` was an item of a tuple of ints and floats picked by a scalar parameter or the
block count (`REPS[d]`): the ring stored 1.5 as 1 and the delayed stage ran its loop twice
instead of three times, at values the check never ran (accepted; the emulator's outputs differ
at `d = 3`). Only a bound the parameter stands in outside a call (`pl.range(0, p)`) says it is an
integer; here the field's type cannot be told, and PTO072 asks for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, kernel_text
from pto_transpile import transpile

BY_PARAM = kernel_text(Path(__file__).parent / "kernels" / "h173_float_item_bounds_a_loop.py")
BY_BLOCKS = edited(BY_PARAM, [
    ("REPS = (1, 1, 1, 1.5)", "REPS = (1, 1, 1, 1.5, 1, 1, 1, 1, 1)"),
    ("    d: pl.DT_INT32,\n", ""),
    ("    for ki in pl.range(0, n_tiles):\n",
     "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    num_cores = pl.get_block_num()\n"
     "    for ki in pl.range(core_id, n_tiles, num_cores):\n"),
    ("scale_store(ki, REPS[d],", "scale_store(ki, REPS[num_cores],"),
])


@pytest.mark.parametrize("text, picked", [(BY_PARAM, "REPS[d]"), (BY_BLOCKS, "REPS[num_cores]")])
def test_a_value_under_a_call_in_a_loop_bound_does_not_type_its_field(text, picked):
    errors = [d for d in transpile(text, path="k.py", preload=2).diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO072"] and f"`{picked}` travels to stage `scale_store`" in errors[0].message


def test_a_value_standing_alone_in_a_loop_bound_is_an_integer():
    bare = edited(BY_PARAM, [("REPS = (1, 1, 1, 1.5)", "REPS = (1, 1, 1, 2)"),
                             ("pl.range(0, int(p * 2))", "pl.range(0, p * 2)")])
    result = transpile(bare, path="k.py", preload=2)
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
