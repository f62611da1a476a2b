"""Probe h106's kernels: typed scalars that wrap or round at runs the check does not make, `math`
of values it cannot take for integers, a core's atomic additions into an integer tensor, and the
forms of `math` and of struct names the check follows. Each accepted kernel here ran wrong on the
emulator; each refused one was accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
WRAPS = "which wraps or rounds it at some run the check does not make"


@pytest.mark.parametrize("name, words", [
    ("int_tensor_float_adds", "is summed in another order: atomic additions of one core"),
    ("ceil_of_float_param", "receives `scale` as a value the check cannot compute"),
    ("math_floor_of_large_known_int", "`pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])`"),
    ("int32_wrap_of_trip_count", f"`desc` holds a value computed from a loop variable, a counter, a trip count or a "
                                 f"scalar parameter as `DT_INT32`, {WRAPS}"),
    ("int32_wrap_of_loop_variable", f"as `DT_INT32`, {WRAPS}"),
    ("int16_struct_field_of_loop_variable", "field `tg.tag` holds a value computed from a loop variable"),
    ("pl_const_int16_of_loop_variable", "`pl.const(ki * 2048, pl.DT_INT16)` holds a value"),
    ("fp32_rounding_of_int_param", f"as `DT_FP32`, {WRAPS}"),
    ("struct_alias_by_tuple", "it is the struct `cfg` under another name"),
])
def test_the_kernel_is_refused(name, words):
    messages = error_messages(transpile(kernel_text(KERNELS / f"h106_{name}.py"), path="k.py"))
    assert messages and words in messages[0], messages


@pytest.mark.parametrize("name, run", [
    ("fp16_param_rounded_in_ctx", dict(shapes={"a": (160, 32), "out": (160, 32)}, scalars={"n": 4, "x": 0.1})),
    ("from_math_import_ceil", dict(shapes={"a": (160, 32), "out": (160, 32)})),
    ("math_floor_balanced_split", dict(shapes={"a": (224, 32), "out": (224, 32)},
                                       scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=3)),
])
def test_the_kernel_is_proven_and_runs_as_the_serial_one(name, run):
    text = kernel_text(KERNELS / f"h106_{name}.py")
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    kernel = "tiled_scale_kernel" if "tiled_scale_kernel" in text else "kernel"
    report = verify(text, result.code, kernel, **run)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows
