"""The register dtypes `pto_api` states, which the check's vector-function evaluator counts a
store's lanes by, are the ones the emulator's `vf` ops give: a store writes whole lanes of its
register's dtype, so a dtype the two read apart is bytes one writes and the other misses."""

from __future__ import annotations

import types

import pytest

from pto_api.ops import VF_SAME_DTYPE_OPS
from pto_api.registers import FLOAT_LITERAL_DTYPE, INT_LITERAL_DTYPE
from sim_runtime import vf, vfops  # noqa: F401  (vfops registers its ops into vf.OPS)
from sim_runtime.dtypes import DTYPES
from sim_runtime.errors import KernelError

#: ops that accumulate into the register they are assigned to: called outside an assignment,
#: the emulator has no target to read
ACCUMULATING = {"axpy", "mul_add_dst", "mul_dst_add"}


@pytest.fixture
def in_vector_function():
    vf._state.run = types.SimpleNamespace(ops=0)
    try:
        yield
    finally:
        vf._state.run = None


@pytest.mark.parametrize("dtype", ["DT_INT16", "DT_FP32"])
def test_lane_wise_ops_keep_their_sources_dtype(in_vector_function, dtype):
    reg, mask = vf.Reg.of(DTYPES[dtype], 3), vf.create_mask(dtype=DTYPES[dtype])
    ran = set()
    for op in sorted(VF_SAME_DTYPE_OPS - ACCUMULATING):
        for args in ((reg, mask), (reg, reg, mask), (reg, 2, mask)):
            try:
                out = vf.OPS[op](*args)
            except (TypeError, KernelError):
                continue
            assert out.dtype is reg.dtype, op
            ran.add(op)
            break
    shifts = {"shift_left", "shift_right"} if dtype == "DT_FP32" else set()  # integer registers only
    assert ran == VF_SAME_DTYPE_OPS - ACCUMULATING - shifts


def test_full_of_a_scalar_gives_the_literals_dtype(in_vector_function):
    assert vf.full(1.5).dtype is DTYPES[FLOAT_LITERAL_DTYPE]
    assert vf.full(1).dtype is DTYPES[INT_LITERAL_DTYPE]
