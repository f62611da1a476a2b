"""A struct field and an annotated local hold a value of their dtype in the check
(`pto_api.scalars`, plain Python) exactly as in the emulator (`sim_runtime`, numpy): the check
compares what a delayed stage receives through a ctx field with what the serial kernel hands
it, and the emulator runs both; if they converted differently, one would pass what the other
shows wrong."""

from __future__ import annotations

import math

import pytest

from pto_api.scalars import INT_FIELD, storable, stored
from sim_runtime.dtypes import DTYPES
from sim_runtime.tiles import Struct, typed_scalar

VALUES = [0, 1, -1, 3, -3, 0.75, -0.75, 1.5, 2.5, -2.5, 127, 128, 255, 256, -129, 2 ** 15, 2 ** 16 + 3,
          2 ** 31, 2 ** 32 + 5, -(2 ** 31) - 1, 2 ** 40 + 7, 1e-9, 1.0000001, 1.000000001, 0.1, 1 / 3,
          65504.0, 65520.0, 70000.0, 1e38, 3.5e38, -1e-40, 1.00390625, 1.005859375, 2 ** 24 + 1,
          2 ** 54 + 2 ** 30 + 1, 2 ** 60 + 2 ** 36 + 2 ** 35 - 1, -0.0]
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy on values past a dtype
DTYPE_NAMES = [name for name in DTYPES if storable(name) and DTYPES[name].computable]


def test_every_convertible_dtype_is_covered():
    assert {"DT_INT8", "DT_UINT8", "DT_INT16", "DT_UINT16", "DT_INT32", "DT_UINT32", "DT_INT64", "DT_FP16",
            "DT_BF16", "DT_FP32", "DT_BOOL"} <= set(DTYPE_NAMES), DTYPE_NAMES


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
def test_a_value_of_a_dtype_is_stored_as_the_emulator_stores_it(dtype):
    bits = DTYPES[dtype].bits
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1)) if dtype.startswith("DT_INT") else (0, 2 ** bits)
    for value in VALUES:
        if not DTYPES[dtype].is_float() and isinstance(value, float) and not low <= value < high:
            # a float past the integer's range: the device's conversion is not defined, nor followed
            with pytest.raises(ValueError):
                stored(value, dtype)
            continue
        ours = stored(value, dtype)
        theirs = typed_scalar(value, DTYPES[dtype])
        assert ours == theirs or math.isnan(ours) and math.isnan(theirs), (dtype, value, ours, theirs)
        assert type(ours) is type(float(theirs) if isinstance(theirs, float) else int(theirs)), (dtype, value)


def test_a_field_initialised_with_an_int_truncates_as_the_emulator_s_does():
    st = Struct("T", {"g": 0})
    for value in VALUES:
        if isinstance(value, float) and abs(value) >= 2 ** 63:
            continue
        st.g = value
        assert stored(value, INT_FIELD) == st.g, value
