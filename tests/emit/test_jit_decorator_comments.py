"""The `pipeline=` argument leaves `@pl.jit(...)` in the output, and the rest of the decorator keeps
its comments (probe h254: written over several lines, the comment on the kept argument's line and
the one above the removed argument were deleted, and the `)` moved onto the argument's line)."""

from __future__ import annotations

import pytest

from helpers import ROOT, error_messages
from pto_transpile import transpile

DEMO = (ROOT / "examples" / "seed_demo.py").read_text(encoding="utf-8")
ONE_LINE = "@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=2))\n"


@pytest.mark.parametrize("written, expected", [
    (ONE_LINE, "@pl.jit(auto_mutex=True)\n"),
    ("@pl.jit(\n    auto_mutex=True,  # the stages share L0 tiles\n    # preload 2 measured best\n"
     "    pipeline=pl.pipeline.PipelineConfig(preload=2),\n)\n",
     "@pl.jit(\n    auto_mutex=True,  # the stages share L0 tiles\n    # preload 2 measured best\n)\n"),
    ("@pl.jit(auto_mutex=True,  # the stages share L0 tiles\n        pipeline=pl.pipeline.PipelineConfig(preload=2))\n",
     "@pl.jit(auto_mutex=True,  # the stages share L0 tiles\n)\n"),
    # probe h255: the layouts the first fix left losing comments
    ("@pl.jit(\n    auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=2),  # both\n)\n",
     "@pl.jit(\n    auto_mutex=True,  # both\n)\n"),
    ("@pl.jit(\n    auto_mutex=True,\n    pipeline=pl.pipeline.PipelineConfig(preload=2),\n    # last\n)\n",
     "@pl.jit(\n    auto_mutex=True,\n    # last\n)\n"),
    ("@pl.jit(\n    pipeline=pl.pipeline.PipelineConfig(preload=2),  # pipe\n    # above\n"
     "    auto_mutex=True,  # c\n)\n",
     "@pl.jit(\n    # pipe\n    # above\n    auto_mutex=True,  # c\n)\n"),
    ("@pl.jit(\n    auto_mutex=True,  # c\n    pipeline=pl.pipeline.PipelineConfig(preload=2)  # pipe\n)\n",
     "@pl.jit(\n    auto_mutex=True,  # c\n    # pipe\n)\n"),
    ("@pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=2))\n", "@pl.jit()\n"),
], ids=["one-line", "one-argument-a-line", "closing-on-the-removed-line", "two-on-a-line", "above-the-close",
        "removed-first", "removed-last-without-comma", "removed-alone"])
def test_the_decorator_keeps_its_comments(written, expected):
    assert DEMO.count(ONE_LINE) == 1
    result = transpile(DEMO.replace(ONE_LINE, written), path="k.py")
    assert error_messages(result) == [] and result.code is not None
    assert expected + "def pipeline_demo_kernel(" in result.code, result.code[result.code.index("@pl.jit"):][:200]
