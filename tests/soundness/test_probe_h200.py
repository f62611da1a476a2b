"""Probe h200: a struct picked by a test or from a list and handed to a stage (`sts[i % 2]`, `cfg =
even if i % 2 == 0 else odd`) was refused as a value whose integer or float type cannot be told,
with the help to annotate it with a dtype, which does not make a struct a number. The refusal
names the pick now, and the help the form the ring carries."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_transpile import transpile

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")


def _picked(before: str, body: str, given: str) -> str:
    call = next(line for line in ROWS.splitlines() if line.strip().startswith("finish("))
    stage = next(line for line in ROWS.splitlines() if line.startswith("def finish("))
    text = ROWS.replace(stage, stage.replace("def finish(", "def finish(cfg, "))
    text = text.replace(call, call.replace("finish(", f"finish({given}, "))
    loop = next(line for line in text.splitlines() if line.strip().startswith("for i in pl.range("))
    return text.replace(loop + "\n", before + loop + "\n" + body)


@pytest.mark.parametrize(("before", "body", "given"), [
    ('    sts = [pl.struct("Cfg", g=0.5), pl.struct("Cfg", g=0.5)]\n', "", "sts[i % 2]"),
    ('    even = pl.struct("Cfg", g=0.5)\n    odd = pl.struct("Cfg", g=1.5)\n',
     "        cfg = even if i % 2 == 0 else odd\n", "cfg"),
])
def test_a_struct_picked_is_named_as_such(before, body, given):
    found = [d for d in transpile(_picked(before, body, given), path="k.py").diagnostics if d.code == "PTO072"]
    assert found and "a struct picked by a test or from a list" in found[0].message, found
    assert "a dtype annotation does not make a struct a number" in found[0].hint
