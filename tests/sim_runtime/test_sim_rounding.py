"""pl.RoundMode conversions, checked on values whose correct rounding is known by hand.

fp16 has 10 fraction bits: between 1 and 2 its values are 2^-10 apart, so 1 + 2^-11 is
exactly half way between 1 (even) and 1 + 2^-10 (odd).
"""

import numpy as np
import pytest

from sim_runtime.dtypes import DTYPES
from sim_runtime.rounding import convert

pytestmark = pytest.mark.emulator

FP32, FP16, INT32 = DTYPES["DT_FP32"], DTYPES["DT_FP16"], DTYPES["DT_INT32"]
U = 2.0 ** -10  # one fp16 step in [1, 2)


@pytest.mark.parametrize("mode,x,want", [
    ("CAST_RINT", 1 + U / 2, 1.0),  # tie: to even
    ("CAST_ROUND", 1 + U / 2, 1 + U),  # tie: away from zero
    ("CAST_ROUND", -(1 + U / 2), -(1 + U)),
    ("CAST_RINT", 1 + 3 * U / 2, 1 + 2 * U),  # tie: to even, which is also away
    ("CAST_ROUND", 1 + 3 * U / 2, 1 + 2 * U),
    ("CAST_ROUND", 1 + U / 4, 1.0),  # not a tie: nearest
    ("CAST_FLOOR", 1 + 3 * U / 4, 1.0),
    ("CAST_CEIL", 1 + U / 4, 1 + U),
    ("CAST_TRUNC", -(1 + 3 * U / 4), -1.0),
    ("CAST_ODD", 1 + U / 4, 1 + U),  # inexact: the neighbour with an odd last bit
    ("CAST_ODD", 1 + U, 1 + U),  # exact stays
])
def test_fp32_to_fp16(mode, x, want):
    got = convert(np.array([x], np.float32), FP32, FP16, mode)
    assert got.dtype == np.float16 and float(got[0]) == want


@pytest.mark.parametrize("mode,want", [("CAST_RINT", [2, -2, 2]), ("CAST_ROUND", [3, -3, 2]),
                                        ("CAST_FLOOR", [2, -3, 1]), ("CAST_TRUNC", [2, -2, 1])])
def test_float_to_int(mode, want):
    assert convert(np.array([2.5, -2.5, 1.75], np.float32), FP32, INT32, mode).tolist() == want
