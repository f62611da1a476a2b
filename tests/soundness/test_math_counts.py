"""A trip count written with Python's `math` in the kernel body: `math.floor(rows / BLOCK)` and
`math.ceil(rows / BLOCK)` of an integer are `rows // BLOCK` and `(rows + BLOCK - 1) // BLOCK`,
and are proven as those are (probe h101: refused as bounds "the check can not follow", naming
no form); `math` of numbers the run knows is folded as at module level."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, restamped
from pto_transpile import transpile
from sim_runtime import verify

EXAMPLES = Path(__file__).parents[2] / "examples"
KERNELS = Path(__file__).parent / "kernels"
SCALE = (EXAMPLES / "tiled_scale.py").read_text(encoding="utf-8")
COUNT = "    n_blocks = a.shape[0] // BLOCK\n"
IMPORT = "import os\n"


def _with_count(expression: str) -> str:
    return edited(SCALE, [(IMPORT, IMPORT + "import math\n"), (COUNT, f"    n_blocks = {expression}\n")])


@pytest.mark.parametrize("expression, plain", [
    ("math.floor(a.shape[0] / BLOCK)", "a.shape[0] // BLOCK"),
    ("math.ceil(a.shape[0] / BLOCK)", "(a.shape[0] + BLOCK - 1) // BLOCK"),
    ("a.shape[0] // math.ceil(BLOCK * 1.0)", "a.shape[0] // BLOCK"),
])
def test_a_count_written_with_math_is_proven_as_its_integer_form(expression, plain):
    text = _with_count(expression)
    result = transpile(text, path="k.py")
    assert error_messages(result) == [], error_messages(result)
    reference = transpile(_with_count(plain), path="k.py")
    assert result.code == restamped(reference.code.replace(plain, expression))
    for rows, blocks in ((160, 2), (224, 3)):
        report = verify(text, result.code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                        scalars={"ApplyRelu": 1, "scale": 0.5}, block_dim=blocks)
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (rows, report.rows)


@pytest.mark.parametrize("count", ["math.floor(n / 1)", "math.ceil(n / 1)"])
def test_a_defect_at_one_residue_of_a_count_written_with_math_is_refused(count):
    """residue_defect.py is wrong exactly when its count is a multiple of 3."""
    text = "import math\n" + (KERNELS / "residue_defect.py").read_text(encoding="utf-8").replace(
        "pl.range(0, n)", f"pl.range(0, {count})")
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "stage `scale_store` (task 2) on AIV0 receives `scale` as a value the check cannot compute in the " \
           "serial kernel but 1.0 in the pipelined one (shown with `n // 1` = 3)" in message, message
