"""What travels in the ctx ring, and in a field of what type (probe h100): a typed scalar narrower
than a kernel scalar combined with a plain number (`alpha * scale` of an fp16 `alpha`, an int8 read
plus an offset) is promoted as the device promotes it, and a value bound by `:=` is bound (it was
carried in a field typed by the name's other bindings, or not carried at all). Each kernel ran
wrong on the emulator as generated before: rounded, wrapped, truncated, or another task's value."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
#: kernel -> (the field and its initialiser, the emulator's run)
CASES = {
    "fp16_param_times_float_in_fp16_field": ("gain=0.0", dict(scalars={"scale": 0.1, "alpha": 1.0, "ApplyRelu": 0})),
    "int8_gm_index_wraps_in_int8_field": ("src_row=0", dict(scalars={"scale": 0.5, "ApplyRelu": 0},
                                                            shapes={"perm": (5,)})),
    "walrus_float_in_int_field": ("gain=0.0", dict(scalars={"scale": 0.5, "ApplyRelu": 0})),
    "walrus_only_not_carried": ("gain=0.0", dict(scalars={"scale": 0.5, "ApplyRelu": 0})),
    # the serial kernel's `gain: pl.DT_FP32 = ...` is fp32 too: the emulator converts an annotated local
    "hint_fp32_annotation_rounds_gain": ("gain=0.0", dict(scalars={"scale": 0.5, "ApplyRelu": 0})),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_value_travels_in_a_field_of_its_type_and_runs_as_the_serial_kernel(name):
    text = kernel_text(KERNELS / f"h100_{name}.py")
    result = transpile(text, path="k.py")
    assert result.ok, result.diagnostics
    field, run = CASES[name]
    ring = re.search(r"pl\.struct_array\((.*?)\)\n", result.code, re.S)
    assert ring is not None and field in ring.group(1).replace(" ", "").replace("\n", ""), ring
    shapes = {"a": (160, 32), "out": (160, 32), **run.get("shapes", {})}
    report = verify(text, result.code, "tiled_scale_kernel", shapes=shapes, scalars=run["scalars"], block_dim=2)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_helper_rebinding_its_parameter_is_not_typed_by_the_argument():
    """`def percent(p): p = p / 100; return p` of an int: its result's type is not the int's (it was
    taken for one, and 0.5 carried as 0); a true division's type is not known, so the ring refuses."""
    text = kernel_text(KERNELS / "h100_struct_field_from_helper_rebinding_param.py")
    messages = [d.message for d in transpile(text, path="k.py").diagnostics if d.severity == "error"]
    assert messages == ["`pos.gain` travels to a stage in a ctx field, but whether it is an integer or a float cannot "
                        "be told; the field's initialiser would have to guess its type"], messages


#: probe h101's kernels (kernel `kern`): the scalars and extra tensors of a run that showed each wrong
H101 = {
    "fp16_param_times_int_in_fp16_field": ({"alpha": 1.0009765625}, {}),
    "fp16_plus_fp16_in_fp16_field": ({"alpha": 1.0, "beta": 1.0009765625}, {}),
    "int32_or_uint32_in_int32_field": ({"k": 1, "u": 3000000000}, {}),
    "int_annotation_ring_truncates": ({}, {}),
    "int_tile_use_types_float_pick": ({}, {"cnt": (160, 32)}),
    "struct_declared_two_ways_first_type_carried": ({"alpha": 0.5, "mode": 0}, {}),
}


@pytest.mark.parametrize("name", list(H101))
def test_a_field_holds_what_the_serial_kernel_computes(name):
    """An fp16 times an int or plus an fp16 is computed at a kernel scalar's width; an int32 or a
    uint32 needs a field holding both; `g: int = 0.5` converts nothing (nor does the emulator); a
    constant's float item is a float whatever op uses it; a struct declared twice holds each."""
    text = kernel_text(KERNELS / f"h101_{name}.py")
    result = transpile(text, path="k.py")
    assert result.ok, result.diagnostics
    scalars, shapes = H101[name]
    report = verify(text, result.code, "kern", shapes={"a": (160, 32), "out": (160, 32), **shapes}, scalars=scalars,
                    block_dim=2)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_two_structs_sharing_a_field_name_are_refused():
    """Their fields would travel in one ctx field (PTO084)."""
    text = kernel_text(KERNELS / "h101_two_structs_share_a_field.py")
    codes = [d.code for d in transpile(text, path="k.py").diagnostics if d.severity == "error"]
    assert codes == ["PTO084"], codes


@pytest.mark.parametrize("passed", ["st, pre", "pre, pre"])
def test_a_struct_under_a_second_name_travels_as_the_struct(passed):
    """`pre = st`, the body setting `st.gain`, the stage given `pre` (alone or beside `st`): one
    struct, whose fields travel as its fields (probe h101: `pre` was taken for a number the ring
    could not type, PTO072, and beside `st` for a second struct sharing its fields, PTO084)."""
    text = kernel_text(KERNELS / "h101_two_structs_share_a_field.py")
    text = text.replace('    pre = pl.struct("Epilogue", gain=0.0)  # the float gain the epilogue scales by\n',
                        "    pre = st  # the same struct, by the name the epilogue reads it by\n", 1)
    text = text.replace("    pre.gain = alpha\n", "", 1).replace("            finish(i, sub_id, st, pre,",
                                                              f"            finish(i, sub_id, {passed},")
    assert "pre = st" in text and "pre.gain = alpha" not in text and f"finish(i, sub_id, {passed}," in text
    result = transpile(text, path="k.py")
    assert result.ok, result.diagnostics
    assert "_pl_ctx_0.gain = st.gain" in result.code or "_pl_ctx_0.gain = pre.gain" in result.code, result.code
    report = verify(text, result.code, "kern", shapes={"a": (160, 32), "out": (160, 32)}, scalars={"alpha": 2},
                    block_dim=2)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


#: probe h103's kernels the ring now types as what they carry -> the emulator's run
H103_CARRIED = {
    "helper_return_annotation_trusted": {"alpha": 1.0},
    "float_annotated_local_typed_by_int_tile_use": {"alpha": 2.25},
    "getval_of_rebound_tensor_param": {},
    "nested_tuple_target_binding_unseen": {"alpha": 1.5},
    "uint_param_minus_index": {"shift": 3},
    "int32_param_times_literal": {"big": 2 ** 30},
    "fp32_param_plus_literal": {"alpha": 1.0},
    "helper_local_dtype_annotation": {"alpha": 1.0001},
    "helper_default_param_shadowed_by_module_name": {"alpha": 1.5},
    "struct_alias_counter": {"alpha": 1.5},  # (a counter in a struct handed on under a second name)
}


@pytest.mark.parametrize("name", list(H103_CARRIED))
def test_a_field_holds_what_the_serial_kernel_computes_with(name):
    """Arithmetic gives a plain integer or float whatever dtypes its operands have (a 64-bit
    integer operand: a 64-bit field); a helper's return annotation, a parameter at its default, a
    nested unpacking and a rebound tensor are read as Python reads them; a `math` function gives
    a float. Each kernel's pipelined run differed from the serial one on the emulator (probe h103)."""
    text = kernel_text(KERNELS / f"h103_{name}.py")
    result = transpile(text, path="k.py")
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(text, result.code, "kern", shapes={"a": (160, 32), "out": (160, 32)}, scalars=H103_CARRIED[name])
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("name, words", [
    ("any_shape_attribute_item_typed_int", "whether it is an integer or a float cannot be told"),
    ("helper_param_item_typed_as_module_tuple", "whether it is an integer or a float cannot be told"),
    ("helper_param_named_like_kernel_struct", "whether it is an integer or a float cannot be told"),
    ("tiling_int_field_changed_by_post_init", "whether it is an integer or a float cannot be told"),
    ("uint8_offset_local_wraps_past_8_blocks", "`row` holds a value computed from a loop variable, a counter, a "
                                               "trip count or a scalar parameter as `DT_UINT8`, which wraps or "
                                               "rounds it at some run"),
])
def test_a_value_of_a_type_the_ring_cannot_tell_is_refused(name, words):
    """Not typed from a name of the module or the kernel spelled as a helper's parameter, from any
    `.shape`, or from a dataclass annotation a method may overrule; a loop's offset in a dtype that
    wraps is not followed as the integer it is at the counts run (probe h103: each accepted, and
    wrong on the emulator)."""
    messages = [d.message for d in transpile(kernel_text(KERNELS / f"h103_{name}.py"), path="k.py").diagnostics
                if d.severity == "error"]
    assert messages and words in messages[0], messages


def test_a_field_of_another_type_than_its_value_is_refused_by_the_check(monkeypatch):
    """Whatever the ring's typing decides, the check converts what a ctx field stores as the
    device does (`pto_api.scalars`) and compares what the delayed stage receives: a float
    parameter's value in a field typed int (as the typing would give every field here) is
    refused, naming the field, and the help says whose doing it is."""
    from pto_transpile.sync import ctxtypes

    monkeypatch.setattr(ctxtypes.ScalarTypes, "of", lambda self, expr: ctxtypes.INT)
    result = transpile(kernel_text(KERNELS / "h103_fp32_param_plus_literal.py"), path="k.py")
    (error,) = [d for d in result.diagnostics if d.severity == "error"]
    assert "receives `d` = <value of `alpha + 1e-09`> in the serial kernel but <value of `int(alpha + 1e-09)`> " \
           "in the pipelined one: the ctx ring carries `d` in a field of integers (initialised with an int), which " \
           "holds `int(alpha + 1e-09)` where `alpha + 1e-09` is stored" in error.message, error.message
    assert error.hint.startswith("pto-transpile gave the ctx field another type than the value it carries"), error.hint


def test_a_division_of_integers_the_ring_cannot_type_is_named():
    """`g = n / 2` of an integer parameter handed to a delayed stage that tests it: the device's
    `/` of integers is not documented to give a float, so the ring does not type the field, and
    the refusal names the division rather than saying the type "cannot be told" (probe h108)."""
    messages = [d.message for d in transpile(kernel_text(KERNELS / "h108_true_division_of_integers_in_ring.py"),
                                             path="k.py").diagnostics if d.severity == "error"]
    assert messages and "it is computed by `n / 2`, a `/` of integers" in messages[0], messages


def test_a_handle_held_in_a_struct_is_named_with_the_fix_that_works():
    """`st = pl.struct(g=0.0, o=out)` handed whole to a stage: a ctx field holds a number, and the
    refusal says `st.o` is the tensor `out`, to be passed as an argument of its own (probe h109: it
    asked to annotate the tensor as `pl.DT_FP32`, which changed nothing)."""
    (error,) = [d for d in transpile(kernel_text(KERNELS / "h109_tensor_in_struct.py"), path="k.py").diagnostics
                if d.severity == "error"]
    assert "it is `out`, a handle (a tensor, a tile or a tile group) held in the struct" in error.message
    assert error.hint.startswith("Pass `out` to the stage as an argument of its own"), error.hint


def test_a_handle_picked_from_a_tuple_into_a_struct_is_named():
    """`pl.struct(g=0.0, o=outs[0])`: the handle is named as written (probe h110: the refusal fell
    back to a number of a kind that cannot be told)."""
    (error,) = [d for d in transpile(kernel_text(KERNELS / "h110_handle_in_struct_via_tuple_item.py"),
                                     path="k.py").diagnostics if d.severity == "error"]
    assert "it is `outs[0]`, a handle (a tensor, a tile or a tile group) held in the struct" in error.message
