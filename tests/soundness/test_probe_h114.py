"""Probe h114: a float the check did not compute (`pow(1.5, i % 2)`, `sum(...)`, `tiling.scale ** 1`)
carried in a ctx field typed int by evidence that does not say what the value is (a mention in a
`pl.range` bound, the scalar of an int32-tile op, a key of a dict parameter, a helper's default
reached through a starred argument, a kernel-local `int`, a struct made by a helper, the sign of
a power read from a shadowed module name): uncomputed, the value was never compared, so the
truncation went unseen. What a stage receives from `pow`, `sum` and `math` functions is compared
now, and each kernel is refused naming the truncation. `dir(g)` (and `vars`, `hasattr` of a
special attribute, a format field's attribute) told a `pl.const` typed scalar from the plain
number the ring hands on: only builtins that read a value are allowed on one in a stage. Each
kernel was accepted and wrong on the emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assert_proven_and_run, edited, edited_kernel, kernel_text, refusal_of
from pto_transpile import transpile

KERNELS = Path(__file__).parent / "kernels"
ROWS = {"a": (160, 32), "out": (160, 32)}
TRUNCATED = "in the serial kernel but 1 in the pipelined one: the ctx ring carries `gain` in a field of integers"

REFUSED = {
    "h114_dict_param_key_types_float_int": TRUNCATED,
    "h114_int_tile_scalar_use_types_float_int": TRUNCATED,
    "h114_kernel_local_int_rebound_types_ring_int": TRUNCATED,
    # (since probe h173 a mention in a bound under a call types nothing: the type is asked for)
    "h114_range_bound_mention_types_float_int": "`gain` travels to stage `finish` in a ctx field, but whether it is an "
                                                "integer or a float cannot be told",
    "h114_star_arg_helper_typed_by_default": TRUNCATED,
    "h114_power_sign_read_from_shadowed_module_name": "receives `gain` = 0.5 in the serial kernel but 0 in the",
    "h114_tiled_scale_decay_range_typed_int": "`decay` travels to stage `finish` in a ctx field, but whether it is an "
                                              "integer or a float cannot be told",
    "h114_struct_from_factory_typed_by_kernel_decl": "field `cfg.g` carries a value from one iteration to the next",
    "h114_dir_observes_typed_scalar_made_plain": "`dir(g)` reads more of a value than the value itself",
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_the_kernel_is_refused(name):
    assert REFUSED[name] in refusal_of(KERNELS / f"{name}.py")


def test_the_annotation_the_help_asks_for_fixes_it(tmp_path):
    path = edited_kernel(tmp_path, KERNELS / "h114_range_bound_mention_types_float_int.py",
                         "        gain: float = pow(1.5, i % 2)", "        gain: pl.DT_FP32 = pow(1.5, i % 2)")
    assert_proven_and_run(path, "kern", shapes=ROWS)


DIR = KERNELS / "h114_dir_observes_typed_scalar_made_plain.py"
TESTED = '0.25 if "dtype" in dir(g) else 0.5'


@pytest.mark.parametrize("observer", ['"dtype" in vars(g)', 'hasattr(g, "__dict__")', 'getattr(g, "__dict__", None)',
                                      '"{0.dtype}".format(g)', "callable(g)"])
def test_other_observers_of_the_object_are_refused(observer):
    text = edited(kernel_text(DIR), [(TESTED, f"0.25 if {observer} else 0.5")])
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert errors and "which the pipelined kernel changes" in errors[0], errors


@pytest.mark.parametrize("reader", ['str(g) == "1"', "isinstance(g, int)", '"{}".format(g) == "1"', "abs(g) > 0"])
def test_builtins_that_read_the_value_stay_allowed(tmp_path, reader):
    path = edited_kernel(tmp_path, DIR, TESTED, f"0.25 if {reader} else 0.5")
    assert_proven_and_run(path, "kern", shapes=ROWS)


# misleading refusals -------------------------------------------------------------------------

PTO054 = KERNELS / "h114_pto054_hint_leads_to_wrong_acceptance.py"
TUPLE = KERNELS / "h114_tuple_arg_hint_scalar_dtype.py"
PINGPONG = KERNELS / "h114_pingpong_tensor_hints_scalar_dtype.py"
PAIRS = {"a": (160, 32), "even": (160, 32), "odd": (160, 32)}


def _errors(text: str):
    return [d for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_the_kind_help_asks_for_a_dtype_and_applied_fixes_it(tmp_path):
    """It asked for `gain: int = ...`, which was accepted and wrong (the ring's int field truncated 1.5)."""
    (error,) = _errors(kernel_text(PTO054))
    assert error.code == "PTO054" and "`gain: pl.DT_FP32 = ...`" in error.hint, error.hint
    path = edited_kernel(tmp_path, PTO054, "        gain = pow(1.5, i % 2)",
                         "        gain: pl.DT_FP32 = pow(1.5, i % 2)")
    assert_proven_and_run(path, "kern", shapes=ROWS)


def test_a_tuple_argument_is_named_a_tuple_with_a_help_that_fits():
    """It asked to annotate the tuple with a scalar dtype, which was accepted and put the tuple in a float field."""
    (error,) = _errors(kernel_text(TUPLE))
    assert "it is a tuple, and a ctx field holds one number" in error.message, error.message
    assert "as an argument of its own" in error.hint, error.hint
    annotated = edited(kernel_text(TUPLE), [
        ("finish(i, sub_id, out, (g, 0.25 * (i % 3)),", "finish(i, sub_id, out, v,"),
        ("        g: float = pow(1.5, i % 2)\n", "        g: float = pow(1.5, i % 2)\n"
                                                 "        v: pl.DT_FP32 = (g, 0.25 * (i % 3))\n")])
    assert _errors(annotated), "a tuple annotated as a number was accepted"


def test_a_tuple_in_a_field_of_numbers_is_refused_by_the_check():
    """Typed int by a mention in a `pl.range` bound, the tuple was carried in a field of integers; a
    mention under a call types nothing since probe h173, and the tuple is refused before the check."""
    ranged = "    for _r in pl.range(0, max(1, int(pair[0]))):\n        pl.muls(res, proj, gain)"
    text = edited(kernel_text(TUPLE), [("    pl.muls(res, proj, gain)", ranged)])
    errors = _errors(text)
    assert errors and "but it is a tuple, and a ctx field holds one number" in errors[0].message, errors


def test_an_item_of_a_ping_pong_list_is_named_with_the_fix(tmp_path):
    """`dst = outs[0]` with `outs.reverse()` each iteration: PTO054 then helps that led to a tensor in
    a float ctx field, accepted. Now PTO072 names the choice; a number's annotation is refused by the
    check; the help's pick is proven and runs."""
    (error,) = _errors(kernel_text(PINGPONG))
    assert error.code == "PTO072" and "the loop body chooses per iteration" in error.message, error.message
    typed = edited(kernel_text(PINGPONG), [("        dst = outs[0]", "        dst: pl.DT_FP32 = outs[0]")])
    errors = _errors(typed)
    assert errors and "tensor `even` travels to a delayed stage in the ctx field `dst`" in errors[0].message, errors
    path = edited_kernel(tmp_path, PINGPONG, "        dst = outs[0]", "        dst = (even, odd)[i % 2]")
    assert_proven_and_run(path, "kern", shapes=PAIRS)


def test_a_picked_list_changed_in_place_is_not_passed_as_the_pick():
    """`dst = outs[i % 2]` with `outs.reverse()` after it: the pick, read again where the delayed stage
    runs, would see the list reversed; it is PTO072 instead."""
    text = edited(kernel_text(PINGPONG), [("        dst = outs[0]", "        dst = outs[i % 2]")])
    assert [e.code for e in _errors(text)] == ["PTO072"]


def test_a_sum_of_a_comprehension_in_a_stage_is_proven_and_runs():
    assert_proven_and_run(KERNELS / "h114_sum_of_comprehension_in_stage.py", "kern", shapes=ROWS)
