"""Stage decorators the transform does not read, named. Stages decorated through a module name
for `pl.pipeline.stage` (`stage = pl.pipeline.stage`, `@stage`): PTO004 said the file had no
stage functions and asked for the loop the kernel has (probe h131); it names the alias now. A
stage decorated `@pl.pipeline.stage()`, which does not load, was accepted; PTO076 names it."""

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


def test_a_stage_decorator_called_with_no_function_is_named():
    """`@pl.pipeline.stage()`: accepted before, where the module does not load (probe h131)."""
    text = ROWS.replace("@pl.pipeline.stage\ndef finish(", "@pl.pipeline.stage()\ndef finish(")
    assert text != ROWS
    found = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert [d.code for d in found] == [codes.STAGE_NOT_DECORATED], found
    assert "is decorated with `@pl.pipeline.stage()`, which calls the decorator with no function" in found[0].message
