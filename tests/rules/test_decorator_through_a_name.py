"""A vector function decorated through a name the module assigns (`VFN = pl.vector_function`,
`@VFN`): PTO070 said to bind the function to one function at module level, which it was; the
help names the decorator's spelling now (probe h226)."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import transpile

KERNEL = (Path(__file__).parents[1] / "soundness" / "kernels" / "vf_row_past_slot.py").read_text(encoding="utf-8")


def test_the_help_names_the_decorator():
    text = edited(KERNEL, [("HALF = TILE // 2\n", "HALF = TILE // 2\nVFN = pl.vector_function\n"),
                           ("@pl.vector_function\n", "@VFN\n")])
    found = [d for d in transpile(text, path="k.py").diagnostics if d.code == "PTO070"]
    assert found and "its decorator `@VFN`" in found[0].message, [str(d) for d in found]
    assert found[0].hint.startswith("Decorate `scale_vf`'s `def` with `pl`'s decorator itself (`@pl.vector_function`")
