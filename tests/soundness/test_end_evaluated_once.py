"""A pipeline loop whose end is more than names and numbers (`pl.range(0, pl.getval(lens, 0))`):
`range` evaluates its end once, so the pipelined loop evaluates it once, before the loop, into
`_pl_end_<var>`, which the loop header and the validity test of every beat read (probe h74).
Before, each beat's test re-read GM (`if i < pl.getval(lens, 0):`) and the check refused the
valid kernel with a message about `_pl_ctx_0` in the generated kernel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_after_pipeline_loop import IN_LAST_STAGE, SHAPES

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime.verify import verify

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
_LENS = [("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
          "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    lens: pl.Tensor[[8], pl.DT_INT32],\n")]
#: the trip count read from GM in the loop header
GETVAL = edited(BASE, _LENS + [("    for i in pl.range(0, n_blocks):\n",
                                "    for i in pl.range(0, pl.getval(lens, 0)):\n")])


@pytest.mark.parametrize("preload", [1, 2])
def test_the_end_is_evaluated_once_before_the_loop_and_the_kernel_runs_as_the_serial_one(preload):
    result = transpile(GETVAL, path="k.py", preload=preload)
    assert error_messages(result) == [] and result.code is not None, [str(d) for d in result.diagnostics]
    kernel = result.code.split("def kern")[1]
    assert "    _pl_end_i = pl.getval(lens, 0)\n    for i in pl.range(0, _pl_end_i):\n" in kernel, kernel
    assert "        if i < _pl_end_i:\n" in kernel and kernel.count("pl.getval") == 1, kernel
    for blocks in (3, 5):
        lens = np.array([blocks, 0, 0, 0, 0, 0, 0, 0], dtype=np.int32)
        shapes = {"a": (blocks * 32, 32), "out": (blocks * 32, 32)}
        report = verify(GETVAL, result.code, "kern", path="k.py", shapes=shapes, tensors={"lens": lens})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_an_end_of_names_and_numbers_is_read_in_place():
    code = transpile(BASE, path="k.py", preload=1).code
    assert code is not None and "_pl_end" not in code and "        if i < n_blocks:\n" in code


#: a nested pipeline loop whose end reads a shape: its end is evaluated right above it, in the
#: outer loop, and the ctx ring is still declared above the outer loop
NESTED = edited(IN_LAST_STAGE, [("        for ki in pl.range(0, nk):\n",
                                 "        for ki in pl.range(0, a.shape[0] // BLOCK):\n")])


def test_a_nested_loop_evaluates_its_end_in_the_outer_loop_and_keeps_its_declarations():
    result = transpile(NESTED, path="k.py", preload=1)
    assert error_messages(result) == [] and result.code is not None, [str(d) for d in result.diagnostics]
    kernel = result.code.split("def kern")[1]
    assert kernel.index("_pl_ctx_arr = pl.struct_array(") < kernel.index("    for qi in pl.range(core_id, nq")
    assert "        _pl_end_ki = a.shape[0] // BLOCK\n        for ki in pl.range(0, _pl_end_ki):\n" in kernel
    for block_dim in (1, 2):
        rows = verify(NESTED, result.code, "kern", path="k.py", shapes=SHAPES, block_dim=block_dim).rows
        assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message
