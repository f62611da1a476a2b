"""Probe h110: struct fields typed by an initialiser whose dtype the check misread (a `bool`
parameter, a bool in a typed local, `pl.const(True, ...)`, a builtin's name that a parameter
rebinds, a stage's struct parameter bound again, a field a helper stores a typed value into),
64-bit fields of a parameter taken to hold 32 bits, a bare annotation taken for a binding, and a
tiling-key test against a module constant the kernel shadows. Each was accepted and wrong on the
emulator; the valid ones beside them were refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, edited, error_messages, kernel_text, refusal_of
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
MAYBE_TYPED = "which may or may not hold a value of a `pl` dtype"

REFUSED = {
    "h110_bare_annotation_taken_for_binding": "`gain` carries a value from one iteration to the next",
    "h110_bool_kernel_param_default_types_struct_field": f"field `g` is initialised by `use_gain`, {MAYBE_TYPED}",
    "h110_builtin_name_shadowed_by_parameter": f"struct field `v` is initialised by `int(v)`, {MAYBE_TYPED}",
    "h110_stage_struct_param_rebound_if_none_field_init": f"initialised by `st.g`, {MAYBE_TYPED}",
    "h110_struct_field_typed_through_helper_store": f"initialised by `hold.a`, {MAYBE_TYPED}",
    "h110_int_param_range_int64_field_wraps": "field `tg.tag` holds a value computed from",
    "h110_tiling_int64_field_range_taken_as_count": "field `tg.tag` holds a value computed from",
    "h110_key_test_against_shadowed_module_constant": "field `tg.tag` carries a value from one iteration",
    "h110_parameter_residue_exempt_from_narrowing": "`tag` holds a value computed from",
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_the_kernel_is_refused(name):
    assert REFUSED[name] in refusal_of(KERNELS / f"{name}.py")


@pytest.mark.parametrize("name", [
    # a bool in a local annotated with a dtype is that dtype's 1, on the emulator as on the device
    "h110_dtype_annotated_bool_local_types_struct_field",
    # `pl.const(True, pl.DT_INT8)`: the int8 1 in the check as on the emulator
    "h110_pl_const_bool_int8_field_taken_untyped",
    # a struct field initialised by a name bound to `pl.const(True, pl.DT_INT8)`: its ctx field is int8 too
    "h110_pl_const_of_bool_struct_field_untyped_in_check",
    # a field declared `pl.const(1, TAG_DT)` of a module dtype name: its ctx field is int8 as well
    "h110_struct_whole_module_dtype_alias",
    # a field named `_kinds`: the emulator's struct keeps its own records where no field can be named
    "h110_struct_field_named_kinds_breaks_ctx_entries",
])
def test_the_kernel_is_proven_and_runs_as_the_serial_one(name):
    assert_proven_and_run(KERNELS / f"{name}.py", "kern", shapes={"a": (160, 32), "out": (160, 32)})


WALRUS = kernel_text(KERNELS / "h110_walrus_bound_value.py")
TEST = "        if (g := 0.5 + 0.25 * (i % 2)) > 10.0:\n"


def test_a_value_bound_by_a_walrus_in_a_test_is_made_in_the_iteration():
    result = transpile(WALRUS, path="k.py")
    assert error_messages(result) == [], error_messages(result)
    report = verify(WALRUS, result.code, "kern", shapes={"a": (160, 32), "out": (160, 32)})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("test", [
    "        if (g := g * 2.0 + 0.5) > 10.0:\n",  # it reads the value before
    "        if i > 0 and (g := 0.5 + 0.25 * (i % 2)) > 10.0:\n",  # it may not run
])
def test_a_walrus_that_reads_the_value_or_may_not_run_still_carries(test):
    loop = "    for i in pl.range(0, n_blocks):\n"
    text = edited(WALRUS, [(TEST, test), (loop, "    g = 0.5\n" + loop)])
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and "`g` carries a value" in messages[0], messages
