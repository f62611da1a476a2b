"""Probe h109: values whose type the ctx ring changed, and struct fields typed by a value whose
dtype the check did not see. A field of integers chosen from how a stage uses a value truncated
a float the check could not compute or did not take for one (`sqrt` imported by name, a GM read
through an alias, a float tile's element, `round(x, 1)`, `pow(x, -1)`), and gave an int where the
serial kernel handed the stage `16.0`; a struct made in a stage from a value of a `pl` dtype, or
from a name bound to a factory's result, took the dtype in the serial kernel only; a `pl.const`
whose dtype was a local name, and a 64-bit field of the loop variable times 2 ** 57, wrapped at
counts the check does not run; a struct handed whole to a stage lost its int8 field in the ring.
Each was accepted and wrong on the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, edited, error_messages, kernel_text, refusal_of
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
ROWS = {"a": (160, 32), "out": (160, 32)}

UNTYPED = "whether it is an integer or a float cannot be told"
REFUSED = {
    # a field typed from an offset `int(x * 2)` the stage computes: no longer typed so
    "h109_float_annotated_from_math_sqrt_in_int_ring_field": UNTYPED,
    "h109_fp32_gm_read_via_tiling_key_alias_truncated_in_int_ring_field": UNTYPED,
    "h109_getval_of_fp32_make_tile_truncated_in_int_ring_field": UNTYPED,
    "h109_unknown_builtin_pow_value_truncated_in_int_ring_field": UNTYPED,
    "h109_round_ndigits_of_gm_read_truncated_in_int_ring_field": "it is computed by `(pl.getval(sel, i) % 4) / 3`",
    "h109_whole_float_in_int_ring_field_types_stage_struct": "it is computed by `BLOCK / 2`, a `/` of integers",
    # struct fields initialised by a value whose dtype the check does not see
    "h109_int8_const_loses_dtype_in_ring_struct_in_stage": "struct field `v` is initialised by `g`, which may",
    "h109_int16_factory_tag_bound_to_name_then_struct": "struct field `tag` is initialised by `t0`, which may or may",
    "h109_struct_field_from_bool_tiling_default_truncated_in_ring": "field `g` is initialised by `tiling.use_bias`",
    # values that wrap at counts the check does not run
    "h109_pl_const_with_local_dtype_alias_wraps_unseen": "`pl.const(ki * 2048, tag_dt)` holds a value computed from",
    "h109_int64_field_of_loop_variable_times_constant_wraps": "field `tg.tag` holds a value computed from a loop",
    "h109_user_struct_array_typed_field_exempt_from_narrowing": "holds a value computed from a loop variable",
    # a residue of a parameter is not run at all of its values: `k % 200` as int8 wraps at k = 150
    "h109_int8_local_of_parameter_residue": "`bank` holds a value computed from",
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_the_kernel_is_refused(name):
    assert REFUSED[name] in refusal_of(KERNELS / f"{name}.py")


@pytest.mark.parametrize("name, kernel, run", [
    # the ctx field mirrors the int8 field of the struct it stands in for
    ("h109_stage_writes_runtime_value_into_typed_struct_field_replaced_by_ctx", "kern", dict(shapes=ROWS)),
    ("h109_struct_made_per_iteration", "kern", dict(shapes=ROWS)),
    # an alias of the struct that nothing reads: the struct is judged under the name the loop uses
    ("h109_unused_struct_alias", "kern", dict(shapes=ROWS)),
    # an int64 or a uint64 value: a kernel integer holds both (refused as of a kind that cannot be told)
    ("h109_int64_or_uint64_value", "kern", dict(shapes=ROWS, scalars={"k": -5, "u": 2 ** 63 + 3})),
    # a `float` parameter given `2` is the float 2.0, as on the device (the emulator passed the int)
    ("h109_float_param_given_whole_number_makes_int_struct", "tiled_scale_kernel", dict(
        shapes=ROWS, scalars={"scale": 0.5, "ApplyRelu": 1, "alpha": 2}, block_dim=2)),
])
def test_the_kernel_is_proven_and_runs_as_the_serial_one(name, kernel, run):
    assert_proven_and_run(KERNELS / f"{name}.py", kernel, **run)


def test_a_whole_float_in_a_field_of_integers_is_the_integer_the_emulator_stores():
    """The check converts what a ctx field of integers stores as the emulator does: `16.0` is the
    int `16` there (it was kept as `16.0`, "equal"), which the comparison of what a stage
    receives tells from the float the serial kernel hands it."""
    from pto_api.scalars import INT_FIELD
    from pto_transpile.soundness.values import typed_number

    held = typed_number(16.0, INT_FIELD)
    assert held == 16 and type(held) is int
    assert type(typed_number(3, "DT_FP32")) is float


TWO_NAMES = kernel_text(KERNELS / "h109_counter_stepped_under_two_names.py")


def test_a_counter_stepped_under_two_names_is_one_counter():
    """`v = cnt`, then `v.n += 1` and `cnt.n += 1`: one field, stepped by 2 an iteration, was taken
    for two counters, one starting where the other left it (refused, asking to start it at a
    constant, which it did)."""
    result = transpile(TWO_NAMES, path="k.py")
    assert error_messages(result) == [], error_messages(result)
    for rows in (32, 160):
        report = verify(TWO_NAMES, result.code, "kern", shapes={"a": (rows, 32), "out": (rows, 32)})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("steps", [
    "        v.n = v.n * 2 + 1\n        cnt.n += 1\n",  # not a counter under one of the names
    "        v.n += 2\n        cnt.n = (cnt.n + 1) % 4\n",  # a counter and a residue of one field
])
def test_a_field_stepped_otherwise_under_a_second_name_is_still_judged(steps):
    text = edited(TWO_NAMES, [("        v.n += 1\n        cnt.n += 1\n", steps)])
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and messages[0].startswith("the pipelined kernel is not proven equivalent"), messages
    assert "field `v.n` carries a value" in messages[0] or "counter `v.n` starts at" in messages[0], messages


def test_an_alias_the_loop_reads_is_still_judged():
    text = edited(kernel_text(KERNELS / "h109_unused_struct_alias.py"),
                  [("        st.g = 0.5 + 0.25 * (i % 2)\n", "        g0 = cfg.g\n        st.g = g0 + 0.25\n")])
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and "carries a value" in messages[0], messages


@pytest.mark.parametrize("name, edit, kernel, run", [
    # the field's initialiser made plain, as the refusal's help says
    ("h109_int8_const_loses_dtype_in_ring_struct_in_stage", ("    s = pl.struct(v=g)", "    s = pl.struct(v=int(g))"),
     "kern", dict(shapes=ROWS)),
    # held untyped, as the refusal's help says: a field initialised with `0`, a name with no annotation
    ("h109_int64_field_of_loop_variable_times_constant_wraps",
     ("pl.struct(tag=pl.const(0, pl.DT_INT64))", "pl.struct(tag=0)"), "kernel",
     dict(shapes={"a": (2144, 32), "out": (2144, 32)}, scalars={"n": 67})),
    ("h109_int8_local_of_parameter_residue", ("        bank: pl.DT_INT8 = k % 200", "        bank = k % 200"),
     "kernel", dict(shapes=ROWS, scalars={"n": 5, "k": 150})),
])
def test_the_help_applied_gives_a_proven_kernel(name, edit, kernel, run, tmp_path):
    fixed = tmp_path / "fixed.py"
    fixed.write_text(edited(kernel_text(KERNELS / f"{name}.py"), [edit]), encoding="utf-8")
    assert_proven_and_run(fixed, kernel, **run)
