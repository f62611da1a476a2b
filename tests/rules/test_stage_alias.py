"""Stages decorated through a module name for `pl.pipeline.stage` (`stage = pl.pipeline.stage`,
`@stage`): the transform reads the decorator written out. PTO004 said the file had no stage
functions and asked for the loop the kernel has (probe h131); it names the alias now."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import codes, transpile

ROWS = (Path(__file__).parents[1] / "soundness" / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")


def test_stages_decorated_through_an_alias_are_named():
    imports = "import pypto_pro.language as pl\n"
    text = edited(ROWS, [(imports, imports + "\nstage = pl.pipeline.stage\n")])
    text = text.replace("@pl.pipeline.stage\n", "@stage\n")
    found = [d for d in transpile(text, path="k.py").diagnostics if d.code == codes.NO_PIPELINE_LOOP]
    assert [d.message for d in found] == ["kernel has `pipeline=` but nothing to pipeline: its stages are decorated "
                                          "with `stage`, a name for `pl.pipeline.stage`, which the tool does not "
                                          "follow"]
    assert found[0].hint.startswith("Decorate each stage with `@pl.pipeline.stage` itself"), found[0].hint
