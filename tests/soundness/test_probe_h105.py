"""Probe h105's kernels: typed scalars where the check and the emulator converted differently
(a float past an integer dtype's range, an integer rounded to fp32 twice, -0.0 kept, an annotation
through a class attribute or a name bound later, a struct field typed by an annotated local), values
held in narrow dtypes that wrap at runs the check does not make, and ctx fields of the value's own
narrow dtype, or an integer one for a float the check cannot compute. Each accepted kernel here ran
wrong on the emulator (or stopped the check with an internal error); each refused one was accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
#: kernel -> the emulator's run, at which its pipelined form computed other numbers before
ACCEPTED = {
    "abs_of_int8_param_in_int8_field": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={"k": -128}),
    "bare_uint32_declaration_types_ring_field": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={"k": -5}),
    "fp32_param_copied_into_fp32_field": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={"h": 0.1}),
    "fp32_param_or_its_product_in_fp32_field": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={"h": 0.5}),
    "int4_annotated_local_ring_field": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={"k": -3}),
    "round_ndigits_of_int8_param_in_int8_field": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={"k": 126}),
    "uint32_param_or_negative_gm_value_in_uint32_field": dict(shapes={"a": (160, 32), "out": (160, 32)},
                                                              scalars={"k": 5}),
    "uint64_param_plus_one_in_int64_field": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={"u": 2 ** 63}),
    "internal_nan_in_int32_local": dict(shapes={"a": (64, 32), "out": (64, 32)}, scalars={}),
    "annotated_field_bound_first": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={"h": 1.0}),
    "nan_sentinel_field": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={}),
    "int8_param_annotated_int8": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={"k": -7}),
    "whole_float_in_int32_local_said_not_static": dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={}),
}
REFUSED = [
    # (the launch passes `k` as an int8, so the field `g=k` is one, and `k + 100` wraps in it at some run)
    "struct_field_initialised_by_int8_param",
    "annotation_class_attribute_uint8",
    "annotation_name_rebound_later_in_kernel",
    "bf16_field_block_ramp_rounds_past_256",
    "float_past_int32_range_in_int32_local",
    "gm_fp32_read_through_alias_in_int_field",
    "gm_int_power_in_int_field_by_stage_use",
    "huge_int_to_fp32_double_rounding",
    "int_param_negative_power_in_int_field",
    "negative_zero_in_int32_local",
    "pl_const_uint8_offset_wraps",
    "struct_field_typed_by_annotated_local",
    "struct_field_uint8_offset_wraps",
    "uint32_param_form_wraps_at_one_value",
]


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_the_kernel_is_proven_and_runs_as_the_serial_one(name):
    """Its ctx fields are kernel scalars (or 64-bit integers), which hold every value the serial
    kernel hands the stages; a NaN in an integer local is a value the check does not compute."""
    text = kernel_text(KERNELS / f"h105_{name}.py")
    result = transpile(text, path="k.py")
    assert error_messages(result) == [], error_messages(result)
    report = verify(text, result.code, "kern", **ACCEPTED[name])
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("name", REFUSED)
def test_the_kernel_is_refused(name):
    assert error_messages(transpile(kernel_text(KERNELS / f"h105_{name}.py"), path="k.py"))


def test_a_float_counter_is_refused_naming_the_form_that_is_proven():
    """`g = g + 0.25` is refused with a help the kernel can follow (it said "make it a counter",
    which it is); following it (`g = 0.5 + 0.25 * j` of an integer `j = j + 1`) is proven and runs
    as the serial kernel (probe h105)."""
    text = kernel_text(KERNELS / "h105_float_counter.py")
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "`g` carries a value from one iteration to the next" in message and "count the iterations with an " \
           "integer (`j = j + 1`) and compute the float from it (`g = g0 + 0.25 * j`)" in message, message
    loop = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
    fixed = text.replace("    g = 0.5\n" + loop, "    j = 0\n" + loop + "        g = 0.5 + 0.25 * j\n", 1)
    fixed = fixed.replace("        g = g + 0.25\n", "        j = j + 1\n", 1)
    assert "        g = g + 0.25\n" not in fixed and "g = 0.5 + 0.25 * j" in fixed
    result = transpile(fixed, path="k.py")
    assert error_messages(result) == []
    report = verify(fixed, result.code, "tiled_scale_kernel", shapes={"a": (224, 32), "out": (224, 32)},
                    scalars={"ApplyRelu": 0, "scale": 0.5}, block_dim=2)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows
