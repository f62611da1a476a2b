"""Probe h111: struct fields typed by initialisers the check read as plain (`not 0`, `pl.min` of
a typed value, a parameter whose default is a `pl.const`, `int(gp)` of an int8 parameter, a local
annotated and bound again to a plain value, a loop over a module's own `range`), ctx fields whose
dtype did not match the struct's (a dtype alias the kernel shadows, an int8 field declared
through a name), carried state the check did not look at (a struct five containers deep, a
number or a growing list beside structs in a list, a growing string field), and tiling fields
declared `float` or `pl.DT_FP32` that reached the emulator as an int. Each was accepted and
wrong on the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, refusal_of

KERNELS = Path(__file__).parent / "kernels"
ROWS = {"a": (640, 32), "out": (640, 32)}

REFUSED = {
    # (a field initialised by a bool types no ctx field either: PTO072, probe h113)
    "h111_bool_not_literal_field_init": "`st.v` travels to a stage in a ctx field, but whether it is an integer",
    "h111_pl_min_of_typed_const_field_init": "initialised by `pl.min(tag, 100)`",
    "h111_int_param_default_pl_const_field_init": "initialised by `g`",
    "h111_typed_local_rebound_to_small_int_identity": "initialised by `tag`",
    "h111_typed_local_stripped_by_int_identity": "initialised by `tag`",
    "h111_module_range_shadowed_for_target_plain": "initialised by `tag`",
    # a field of plain integers (not int8): the branch that races is run
    "h111_int_of_dtype_param_field_modelled_as_dtype": "writes `ws[0:16, 0:32]` while stage `mm_stage` (task 1)",
    "h111_carried_field_of_struct_five_lists_deep": "holds a struct more containers deep than the check follows",
    "h111_counter_in_list_beside_struct": "changes from one iteration of the loop to the next",
    "h111_growing_list_of_structs_carries": "changes from one iteration of the loop to the next",
    "h111_string_in_struct_field_carries": "field `st.log` carries a value from one iteration to the next",
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_the_kernel_is_refused(name):
    assert REFUSED[name] in refusal_of(KERNELS / f"{name}.py")


@pytest.mark.parametrize("name, kernel, run", [
    # an int8 field declared through a name bound to `pl.const` values: its ctx field is int8 too, and
    # a GM value the stage stores wraps in both kernels alike
    ("h111_gm_value_wraps_in_aliased_int8_field_not_in_ring", "kern", dict(shapes=ROWS, seed=1)),
    # a dtype alias the kernel binds itself is not the module's: no ctx field of the module's dtype
    ("h111_ctx_dtype_of_module_alias_shadowed_in_kernel", "kern", dict(shapes=ROWS, seed=1)),
    # `int(gp)` of an int8 parameter initialises a field of plain integers, in the check too
    ("h111_int_of_dtype_param_taken_as_dtype_field", "kern", dict(shapes={"a": (160, 32), "out": (160, 32)},
                                                                   scalars={"g": 30})),
    # a tiling field declared `float` (left at a default of 2) or `pl.DT_FP32` (given 2) is a float
    ("h111_tiling_float_field_int_default", "kernel", dict(shapes=ROWS, scalars={"n": 20})),
    ("h111_tiling_fp32_field_given_whole_number", "kernel", dict(shapes=ROWS, scalars={"n": 20, "k": 2})),
])
def test_the_kernel_is_proven_and_runs_as_the_serial_one(name, kernel, run):
    assert_proven_and_run(KERNELS / f"{name}.py", kernel, **run)
