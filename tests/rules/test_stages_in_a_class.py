"""Stages written as functions of a class (`@staticmethod` over `@pl.pipeline.stage`), called as
`Stages.project(...)`: PTO004 said the file has no stages and asked for a loop calling them, which
the kernel has; with one stage there, PTO022 asked to move a use into the stage it is in (probe
h242). Both name the class, and the fix: stages at the module's top level."""

from __future__ import annotations

import re

from helpers import ROOT, error_messages
from pto_transpile import transpile

TILED = (ROOT / "examples" / "tiled_scale.py").read_text(encoding="utf-8")


def _in_class(text: str, *names: str) -> str:
    """`text` with the stages `names` moved into `class Stages` as static methods."""
    for name in names:
        stage = re.search(rf"@pl\.pipeline\.stage\ndef {name}\(.*?\n\n\n", text, re.S).group(0)
        body = "".join(f"    {line}\n" if line else "\n" for line in stage.rstrip("\n").split("\n"))
        text = text.replace(stage, f"class Stages{name}:\n    @staticmethod\n{body}\n\n")
        text = re.sub(rf"(\n +){name}\(i,", rf"\1Stages{name}.{name}(i,", text)
    return text


def test_every_stage_in_a_class_is_named_with_the_fix():
    (message,) = error_messages(transpile(_in_class(TILED, "project", "finish"), path="k.py"))
    assert "its stages are functions of class `Stagesproject` (`Stagesproject.project`), which the tool does not " \
           "read as stages" in message, message


def test_one_stage_in_a_class_is_named_where_the_loop_calls_it():
    result = transpile(_in_class(TILED, "project"), path="k.py")
    (found,) = [d for d in result.diagnostics if d.is_error]
    assert found.code == "PTO022" and found.hint.startswith("`Stagesproject.project` is decorated "
                                                            "`@pl.pipeline.stage` in class `Stagesproject`"), found


def test_stages_of_a_nested_class_are_named_too():
    """`Outer.Stages.project(...)`: the old PTO004 asked for a loop the kernel has (probe h245)."""
    text = _in_class(TILED, "project", "finish")
    for name in ("project", "finish"):
        block = re.search(rf"class Stages{name}:\n.*?\n\n\n", text, re.S).group(0)
        nested = "".join(f"    {line}\n" if line else "\n" for line in block.rstrip("\n").split("\n"))
        text = text.replace(block, f"class Outer{name}:\n{nested}\n\n")
        text = text.replace(f"Stages{name}.{name}(i,", f"Outer{name}.Stages{name}.{name}(i,")
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "its stages are functions of class `Outerproject.Stagesproject`" in message, message
