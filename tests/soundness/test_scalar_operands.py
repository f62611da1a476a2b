"""A binary or compare op given a scalar right operand is its tile-scalar op (`pl.add(y, x, ki)`
runs as `adds`), and `fill_index`'s start is a value too: a loop variable there changes the data
only. Written so, the kernel was refused as an operand varying with the loop, and written `pl.adds`
it was accepted (probe h136). Atomic additions of one core in another order stay refused, into an
integer tensor too: GM converts each sum of float tiles to the tensor's type (probe h106), and the
check does not tell integer tiles from float ones of one size."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
TRIP = (KERNELS / "trip_param.py").read_text(encoding="utf-8")
BRANCH = ("    if ki == 0:\n        pl.relu(y, c_vec)\n    else:\n        pl.add(y, c_vec, bias_ring[ki % 3])\n")


@pytest.mark.parametrize("op", ["add", "sub", "mul", "maximum"])
def test_a_loop_variable_as_the_scalar_of_a_binary_op_is_data(op):
    text = edited(TRIP, [(BRANCH, f"    pl.{op}(y, c_vec, ki)\n")])
    result = transpile(text, path="k.py", preload=2)
    assert error_messages(result) == [] and result.code is not None
    if op == "add":
        rows = verify(text, result.code, "kernel", path="k.py", shapes={"a": (160, 32), "out": (160, 32)},
                      scalars={"n": 5}).rows
        assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message


ATOMIC = kernel_text(KERNELS / "h136_int_atomic_two_stages.py")


@pytest.mark.parametrize("dtype", ["pl.DT_INT32", "pl.DT_FP32"])
def test_atomic_adds_of_one_core_in_another_order_are_refused(dtype):
    text = ATOMIC.replace("pl.DT_INT32", dtype)
    (message,) = error_messages(transpile(text, path="k.py", preload=2))
    assert "is summed in another order: atomic additions of one core" in message, message
