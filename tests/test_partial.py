"""Parsing only what the analysis reads changes nothing: text, positions, output, diagnostics."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from golden_cases import cases
from helpers import ROOT, demo_text
from pto_transpile import partial, transpile
from pto_transpile.partial import Verbatim
from pto_transpile.prescan import check_limits
from pto_transpile.source import SourceFile
from pto_transpile.walk import find, iter_nodes

#: Layouts a line-based reading could get wrong: decorators over several lines, comments
#: deeper than the code they follow, `else` at column 0, strings holding `def`, f-strings
#: naming a helper, CRLF line ends, tabs.
TRICKY = '''"""A kernel file with everything around it."""
import pypto_pro.language as pl

N = 4  # iterations


# a comment above an unrelated helper
def unrelated(x):
    return x + 1
    # deeper than the next statement

  # shallower
def reached(x):
    """Called from a stage, inside an f-string."""
    return x


text = """
def not_a_function():
"""


@pl.pipeline.stage
def stage_a(ki, out, x_db):
    x = x_db.next()
    print(f"{reached(ki)}")
    pl.store(out, x, [ki * 16, 0])


class Unused:
    value = 1


if N > 2:
    M = 1
else:
    M = 2


@pl.jit(
    auto_mutex=True,
)
def kernel(out: pl.Tensor[[64, 16], pl.DT_FP32]):
    x_db = pl.make_tile_group(
        type=pl.TileType(shape=[16, 16], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0, mutex_ids=[0, 1])
    for ki in pl.range(0, N):
        with pl.section_vector():
            stage_a(ki, out, x_db)


def after(y):
\tif y:
\t\treturn unrelated(y)
# trailing comment
'''


UNRELATED = '\n\ndef unrelated_tail(x):\n    """Nothing names it."""\n    return x\n'


def corpus() -> list[tuple[str, str]]:
    texts = [(c.name, (c / "input.py").read_text(encoding="utf-8") + UNRELATED) for c in cases()]
    texts.append(("attention", (ROOT / "benchmarks" / "kernels" / "attention_kernel.py").read_text(encoding="utf-8")))
    texts.append(("tricky", TRICKY))
    texts.append(("tricky-crlf", TRICKY.replace("\n", "\r\n")))
    texts.append(("demo-header-crlf", "# header\r\n\r\n" + demo_text().replace("\n", "\r\n", 5)))
    return texts


@pytest.mark.parametrize("name,text", corpus(), ids=[n for n, _ in corpus()])
def test_parsed_statements_are_the_whole_files_statements(name, text):
    layout = check_limits(text)
    skimmed = partial.parse(text, layout)
    assert skimmed is not None, "nothing was skipped"
    module = skimmed.module
    assert module.code == text
    assert any(isinstance(s, Verbatim) for s in module.body)
    # each statement is exactly its stretch of the text, and starts on the line recorded for it
    offset = 0
    for stmt, line in zip(module.body, skimmed.first_lines):
        code = module.code_for_node(stmt)
        assert text[offset:offset + len(code)] == code
        assert text.count("\n", 0, offset) + text.count("\r", 0, offset) - text.count("\r\n", 0, offset) + 1 == line
        offset += len(code)
    # positions of parsed nodes equal those of the whole file parsed by libcst
    whole = cst.parse_module(text)
    full = MetadataWrapper(whole, unsafe_skip_copy=True).resolve(PositionProvider)
    src = SourceFile.parse(text, name)
    parsed = [s for s in src.module.body if not isinstance(s, Verbatim)]
    twins = {s.name.value: s for s in whole.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    for stmt in parsed:
        if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        ours = [n for n in iter_nodes(stmt) if isinstance(n, (cst.Call, cst.Name))]
        theirs = [n for n in iter_nodes(twins[stmt.name.value]) if isinstance(n, (cst.Call, cst.Name))]
        assert [src.span(n) for n in ours] == [full[n] for n in theirs]


def test_what_is_kept_as_text():
    module = SourceFile.parse(TRICKY).module
    kept = {s.name for s in module.body if isinstance(s, Verbatim)}
    # `reached` is named by a stage (in an f-string): parsed; nothing names the others
    assert kept == {"unrelated", "Unused", "after"}
    assert "reached" in {s.name.value for s in module.body if isinstance(s, cst.FunctionDef)}


@pytest.mark.parametrize("text", [
    TRICKY + "def broken(:\n    pass\n",  # a syntax error in a statement kept as text
    TRICKY.rstrip("\n"),  # no final newline
    TRICKY.replace("# trailing comment", "\f# form feed"),
    "def f():\n    return 1\n",  # no kernel: nothing to skip for
], ids=["syntax-error", "no-final-newline", "form-feed", "no-kernel"])
def test_whole_file_parsed_when_skipping_is_not_safe(text):
    assert partial.parse(text, check_limits(text)) is None


def _without_skipping(monkeypatch, text, **kwargs):
    monkeypatch.setattr(partial, "parse", lambda text, layout: None)
    try:
        return transpile(text, **kwargs)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("name,text", [(n, t) for n, t in corpus() if n != "tricky-crlf"] + [
    ("syntax-error", TRICKY + "def broken(:\n    pass\n"),
    ("error-in-kernel", TRICKY.replace("mutex_ids=[0, 1])", "mutex_ids=[0, 1], fwd_ids=[0, 16])")),
], ids=lambda v: v if isinstance(v, str) and len(v) < 40 else "")
def test_transpile_is_unchanged(monkeypatch, name, text):
    ours = transpile(text, preload=2, path=f"{name}.py")
    whole = _without_skipping(monkeypatch, text, preload=2, path=f"{name}.py")
    assert ours.code == whole.code
    assert ours.diagnostics == whole.diagnostics


def test_find_sees_no_node_of_kept_text():
    module = SourceFile.parse(TRICKY).module
    names = {n.value for n in find(module, cst.Name)}
    assert "unrelated" not in names and "Unused" not in names
