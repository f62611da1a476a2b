"""An attribute's name is no value of the iteration: `tiling.scale` given to a stage, in a kernel
with a scalar parameter also named `scale`, made `scale` travel in the ctx ring (the parameter's
value) and the stage was given `tiling._pl_ctx_neg1.scale`, a program the check then crashed on
(PTO099; study ux2). The argument is passed as written, and the kernel proven and run."""

from __future__ import annotations

import pytest

from helpers import ROOT, edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

TILED = (ROOT / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
CLASH = edited(TILED, [("    tiling: ScaleTiling,\n):", "    tiling: ScaleTiling,\n    scale: pl.DT_FP32,\n):")])


@pytest.mark.parametrize("preload", [1, 2])
def test_a_field_named_as_a_parameter_is_passed_as_written(preload):
    result = transpile(CLASH, path="k.py", preload=preload)
    assert error_messages(result) == []
    assert "_pl_ctx_0.scale" not in result.code and "tiling._pl_ctx" not in result.code
    assert result.code.count("tiling.scale, out, proj_vec_db, res_db)") >= 2
    report = verify(CLASH, result.code, "tiled_scale_kernel", path="k.py", shapes={"a": (96, 32), "out": (96, 32)},
                    scalars={"scale": 3.0, "tiling.scale": 0.5, "ApplyRelu": 1}, block_dim=2)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
