"""Positions measured per statement equal libcst's whole-module positions."""

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from golden_cases import cases
from pto_transpile.read.source import SourceFile
from pto_transpile.read.walk import find

FILES = [c / "input.py" for c in cases()]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.parent.name)
def test_lazy_spans_match_whole_module_positions(path):
    text = "# a header comment\n\n" + path.read_text().replace("\n", "\r\n", 3)
    src = SourceFile.parse(text, str(path))
    full = MetadataWrapper(src.module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = find(src.module, cst.Call) + find(src.module, cst.Name)[::7]
    for node in nodes:
        assert src.span(node) == full[node]


def test_tab_indented_kernel_columns():
    # columns are counted in characters (a tab is one), 0-based in CodeRange, 1-based in diagnostics
    src = SourceFile.parse("def f():\n\tif x:\n\t\ty = g(1)\n")
    call = find(src.module, cst.Call)[0]
    assert (src.span(call).start.line, src.span(call).start.column) == (3, 6)


def test_a_clean_transpile_computes_no_position(monkeypatch):
    """Positions are resolved per statement on demand, a cost near a parse of the kernel's
    statement: a transpile that reports nothing asks for none (the check for proven kernels'
    PTO042 warnings asked for the kernel's span whenever it ran: the demo took 64 ms, not 48)."""
    from helpers import demo_text
    from pto_transpile import transpile
    from pto_transpile.read import source

    asked = []
    monkeypatch.setattr(source.SourceFile, "span", lambda self, node: asked.append(node))
    assert transpile(demo_text(), path="d.py").ok and asked == []
