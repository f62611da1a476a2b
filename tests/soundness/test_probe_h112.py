"""Probe h112: what the ring changes besides a value. A struct field initialised through `round`,
which the check did not compute, had no kind, so a field of integers (in one tiling-key instance
only) was carried in a ctx field of floats; and a test of identity (`a is b`, `type(x) is int`,
`id(a) == id(b)`), followed both ways as if both kernels took the same way, where the ring hands
two structs as one ctx entry and one typed value under two names as two plain ones. Each was
accepted and wrong on the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, edited_kernel, kernel_text, refusal_of

KERNELS = Path(__file__).parent / "kernels"
ROWS = {"a": (160, 32), "out": (160, 32)}
ROUND = KERNELS / "h112_round_choice_field_int_serially_float_in_ring.py"
TYPED = KERNELS / "h112_typed_scalar_identity_split_by_ctx_fields.py"
RING_APART = "the ctx ring carries `budget.credits`, a field of integers as its initialiser types it"
IDENTITY = "tests whether two values are one object, which the pipelined kernel changes"



@pytest.mark.parametrize("name, expected", [
    ("h112_round_choice_field_int_serially_float_in_ring", RING_APART),
    ("h112_round_choice_field_tiling_key_instance", RING_APART),
    ("h112_struct_identity_merged_in_ctx", "`cfg is base_cfg` compares structs, which is whether they are one object"),
    ("h112_typed_scalar_identity_split_by_ctx_fields", "`tag is base_tag` " + IDENTITY),
    ("h112_scalar_dtype_lost_in_ctx_field", "`factor.dtype` reads the dtype a scalar is held in"),
    # a `pl.make_tuple` is passed as written: a delayed stage reads what later iterations left in it
    ("h112_make_tuple_in_body_next_iteration_value", "it is a `pl.make_tuple` the loop body makes"),
    ("h112_make_tuple_field_set_in_body", "it is a `pl.make_tuple` whose fields the loop body sets"),
    ("h112_struct_inside_make_tuple_read_late", "it is a `pl.make_tuple` holding `st`"),
    ("h112_tiled_scale_epilogue_tuple", "it is a `pl.make_tuple` whose fields the loop body sets"),
    # misleading refusals: the construct named as it is
    ("h112_stage_called_twice_through_alias", "stage `project` is already called at line"),
    ("h112_varlen_last_tile_test_said_not_trip_count",
     "the trip count of `pl.range(0, cnt)` is read from GM at an index that moves with an enclosing loop"),
])
def test_the_kernel_is_refused(name, expected):
    assert expected in refusal_of(KERNELS / f"{name}.py")


@pytest.mark.parametrize("init", ["max(round(6.4), 0.5)", "round(RATIO * 8) or 0.5", "0.0 or round(RATIO * 8)"])
def test_other_initialisers_through_round_are_refused(tmp_path, init):
    path = edited_kernel(tmp_path, ROUND, "credits=round(RATIO * 8) if QUANTISE else RATIO * 8", f"credits={init}")
    assert RING_APART in refusal_of(path)


def test_a_field_initialised_by_round_of_a_float_kept_float_is_proven(tmp_path):
    path = edited_kernel(tmp_path, ROUND, "credits=round(RATIO * 8) if QUANTISE else RATIO * 8",
                   "credits=float(round(RATIO * 8)) if QUANTISE else RATIO * 8")
    assert_proven_and_run(path, "kern", shapes=ROWS)


@pytest.mark.parametrize("test", ["type(tag) is int", "id(tag) == id(base_tag)"])
def test_other_tests_of_identity_or_type_are_refused(tmp_path, test):
    path = edited_kernel(tmp_path, TYPED, "    if tag is base_tag:", f"    if {test}:")
    assert "which the pipelined kernel changes" in refusal_of(path)


@pytest.mark.parametrize("test", ['getattr(factor, "dtype", None) is not None', 'hasattr(factor, "dtype")'])
def test_other_reads_of_a_scalars_dtype_are_refused(tmp_path, test):
    path = edited_kernel(tmp_path, KERNELS / "h112_scalar_dtype_lost_in_ctx_field.py",
                         "    if factor.dtype == pl.DT_INT32:", f"    if {test}:")
    assert "reads the dtype a scalar is held in" in refusal_of(path)


def test_identity_in_the_kernel_body_is_the_same_in_both_kernels(tmp_path):
    """The ring changes what a stage receives, not what the kernel body computes with."""
    text = kernel_text(TYPED)
    call = "            finish(i, sub_id, out, tag, base_tag, proj_vec_db, res_db)\n"
    assert call in text and "    if tag is base_tag:" in text
    text = text.replace("    if tag is base_tag:", "    if base_tag:").replace(
        call, call.replace("tag, base_tag,", "tag, tag is base_tag,"))
    path = tmp_path / "kernel.py"
    path.write_text(text)
    assert_proven_and_run(path, "kern", shapes=ROWS)


def test_the_help_for_identity_fixes_the_kernel(tmp_path):
    path = edited_kernel(tmp_path, TYPED, "    if tag is base_tag:", "    if tag == base_tag:")
    assert_proven_and_run(path, "kern", shapes=ROWS)


def test_a_field_initialised_by_round_is_a_field_of_integers_in_the_check_too():
    """`round(x)` gives an int: the field is one of integers, as the ring's is (it was taken for a
    field that keeps what it is given, and refused as a ring the tool got wrong)."""
    assert_proven_and_run(KERNELS / "h112_round_initialised_struct_field.py", "kern", shapes=ROWS)
