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
    "h114_range_bound_mention_types_float_int": TRUNCATED,
    "h114_star_arg_helper_typed_by_default": TRUNCATED,
    "h114_power_sign_read_from_shadowed_module_name": "receives `gain` = 0.5 in the serial kernel but 0 in the",
    "h114_tiled_scale_decay_range_typed_int": "receives `scale` = <value of `tiling.scale ** 1`> in the serial kernel",
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
