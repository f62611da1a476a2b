"""Probes h107 and h108: ctx fields of a dtype of their own (int64, uint64) that wrapped what the
serial kernel kept, typing that missed a positional-only parameter, a name rebound to a slot of
another group or a field initialised by `False`; struct fields typed by a parameter or a factory;
state kept in a helper's default (a struct, a tuple holding a list) or read through one. Each
accepted kernel ran wrong on the emulator (or stopped the check); each refused one was accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
#: kernel file -> (its kernel, the emulator's run at which its pipelined form was wrong)
ACCEPTED = {
    "h107_int64_param_product_wraps_in_int64_ring_field": ("kernel", dict(
        shapes={"a": (160, 32), "out": (160, 32)}, scalars={"k": 2 ** 61})),
    "h107_nan_in_int_ring_field_unknown_to_check": ("kern", dict(
        shapes={"a": (96, 32), "out": (96, 32)}, scalars={"scale": 0.5})),
    "h107_posonly_helper_param_and_sqrt_of_gm_read": ("kernel", dict(
        shapes={"a": (160, 32), "out": (160, 32), "codes": (5,)}, scalars={})),
    "h107_tile_getval_slot_name_rebound": ("kern", dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={})),
    "h107_uint64_joined_with_uint32_in_int64_ring_field": ("kernel", dict(
        shapes={"a": (160, 32), "out": (160, 32)}, scalars={"k": 2 ** 63 + 5, "m": 3})),
    "h107_uint64_param_minus_gm_read_wraps_in_ring": ("kernel", dict(
        shapes={"a": (160, 32), "out": (160, 32), "codes": (5,)}, scalars={"k": 2})),
    "h107_bool_struct_field_annotate_hint": ("kern", dict(
        shapes={"a": (160, 32), "out": (160, 32)}, scalars={"scale": 0.5})),
    "h107_struct_field_initialised_by_trip_count": ("kern", dict(
        shapes={"a": (160, 32), "out": (160, 32)}, scalars={"scale": 0.5})),
}


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_the_kernel_is_proven_and_runs_as_the_serial_one(name):
    text = kernel_text(KERNELS / f"{name}.py")
    result = transpile(text, path="k.py")
    assert error_messages(result) == [], error_messages(result)
    kernel, run = ACCEPTED[name]
    report = verify(text, result.code, kernel, **run)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("name, words", [
    ("h107_bool_struct_field_carries_tile_float", "whether it is an integer or a float cannot be told"),
    ("h107_int16_struct_field_from_factory_wraps", "struct field `tag` is initialised by `zero_tag()`"),
    ("h107_struct_field_initialised_by_param_truncates", ""),
    ("h108_event_overflow_via_default_arg_carry", "field `st.g` carries a value from one iteration to the next"),
    ("h108_state_in_struct_default_of_helper", "carries a value from one iteration to the next"),
    ("h108_state_in_tuple_default_of_helper", "carries a value from one iteration to the next"),
    ("h108_struct_field_read_via_default_arg", "field `st.g` carries a value from one iteration to the next"),
    ("h108_tiled_scale_default_arg_carry", "field `st.g` carries a value from one iteration to the next"),
    ("h108_self_referential_struct_rebind_recursion", "field `st.g` carries a value from one iteration to the next"),
])
def test_the_kernel_is_refused(name, words):
    messages = error_messages(transpile(kernel_text(KERNELS / f"{name}.py"), path="k.py"))
    assert messages and words in messages[0], messages
