"""Parsing only what the analysis reads changes nothing: text, positions, output, diagnostics."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from golden_cases import cases
from helpers import ROOT, at_fixed_rows, demo_text, spread
from pto_transpile import transpile
from pto_transpile.read import partial
from pto_transpile.read.layout import read_layout
from pto_transpile.read.meaning import Unknown
from pto_transpile.read.partial import Verbatim
from pto_transpile.read.source import SourceFile
from pto_transpile.read.walk import find, iter_nodes

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
    texts = [(c.name, at_fixed_rows((c / "input.py").read_text(encoding="utf-8")) + UNRELATED) for c in cases()]
    texts.append(("attention", (ROOT / "benchmarks" / "kernels" / "attention_kernel.py").read_text(encoding="utf-8")))
    texts.append(("tricky", TRICKY))
    texts.append(("tricky-crlf", TRICKY.replace("\n", "\r\n")))
    texts.append(("demo-header-crlf", "# header\r\n\r\n" + demo_text().replace("\n", "\r\n", 5)))
    return texts


def _sampled(items):
    """The hand-made texts always; the golden inputs spread (all of them with -m campaign)."""
    made = {"attention", "tricky", "tricky-crlf", "demo-header-crlf"}
    golden = [pytest.param(n, t, id=n) for n, t in items if n not in made]
    return [pytest.param(n, t, id=n) for n, t in items if n in made] + spread(golden, 3)


@pytest.mark.parametrize("name,text", _sampled(corpus()))
def test_parsed_statements_are_the_whole_files_statements(name, text):
    layout = read_layout(text)
    skimmed = partial.parse(text, layout)
    assert skimmed is not None, "nothing was skipped"
    module = skimmed.module
    assert module.code == text
    assert any(isinstance(s, Verbatim) for s in module.body)
    # each statement is exactly its stretch of the text, and starts on the line recorded for it
    offset = 0
    for stmt, line in zip(module.body, skimmed.first_lines, strict=True):
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
    TRICKY.rstrip("\n"),  # no final newline
    TRICKY.replace("# trailing comment", "\f# form feed"),
    "def f():\n    return 1\n",  # no kernel: nothing to skip for
], ids=["no-final-newline", "form-feed", "no-kernel"])
def test_whole_file_parsed_when_skipping_is_not_safe(text):
    assert partial.parse(text, read_layout(text)) is None


def test_a_syntax_error_in_a_statement_kept_as_text_is_found_before_any_parse():
    with pytest.raises(SyntaxError):
        read_layout(TRICKY + "def broken(:\n    pass\n")


def _without_skipping(monkeypatch, text, **kwargs):
    monkeypatch.setattr(partial, "parse", lambda text, layout: None)
    try:
        return transpile(text, **kwargs)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("name,text", _sampled([(n, t) for n, t in corpus() if n != "tricky-crlf"]) + [
    pytest.param("syntax-error", TRICKY + "def broken(:\n    pass\n", id="syntax-error"),
    pytest.param("error-in-kernel", TRICKY.replace("mutex_ids=[0, 1])", "mutex_ids=[0, 1], fwd_ids=[0, 16])"),
                 id="error-in-kernel"),
])
def test_transpile_is_unchanged(monkeypatch, name, text):
    ours = transpile(text, preload=2, path=f"{name}.py")
    whole = _without_skipping(monkeypatch, text, preload=2, path=f"{name}.py")
    assert ours.code == whole.code
    assert ours.diagnostics == whole.diagnostics


def test_find_sees_no_node_of_kept_text():
    module = SourceFile.parse(TRICKY).module
    names = {n.value for n in find(module, cst.Name)}
    assert "unrelated" not in names and "Unused" not in names


# -- vector functions read with Python's parser -------------------------------------------------

VF_KERNEL = '''
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf

N = 4
OFF = 64


def scale(x):
    return x * 2


@pl.vector_function
def copy_vf(dst, src):
    """Aliases, nested definitions with decorators, a dict, a lambda: the walk order."""
    s = src + OFF
    d = dst
    table = {"a": vf.load_align(s), "b": d}
    pick = lambda q: vf.load_align(q)

    @staticmethod
    def inner(p=vf.load_align(s)):
        e = d + 1
        vf.store_align(e, p)
    for i in pl.range(0, N):
        r = vf.load_align(s, i)
        vf.store_align(d, r)
        r = vf.add(r, r)
    VF_EXTRA


@pl.vector_function
def outer_vf(dst, src):
    copy_vf(dst, src)


@pl.pipeline.stage
def st(ki, out, x_db, t_db):
    x = x_db.next()
    t = t_db.next()
    outer_vf(t, x)
    pl.store(out, t, [ki * 16, 0])


@pl.pipeline.stage
def mm(ki, a, acc_db, x_db):
    acc = acc_db.next()
    pl.load(acc, a, [ki * 32, 0])
    x = x_db.next()
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.jit(pipeline=pl.pipeline.PipelineConfig(preload=1))
def k(a: pl.Tensor[[128, 32], pl.DT_FP32], out: pl.Tensor[[128, 32], pl.DT_FP32]):
    x_db = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                              addrs=0, mutex_ids=[0, 1], fwd_ids=[0, 1], bwd_ids=[2, 3])
    with pl.section_cube():
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
            addrs=0, mutex_ids=[4, 5])
    with pl.section_vector():
        t_db = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                                  addrs=0x4000, mutex_ids=[6, 7])
    for ki in pl.range(0, N):
        with pl.section_cube():
            mm(ki, a, acc_db, x_db)
        with pl.section_vector():
            st(ki, out, x_db, t_db)
'''

#: what the vector function's last line becomes, and whether it can stay text
VF_EXTRAS = {
    "plain": ("pass", True),
    "unknown-op-on-a-parameter": ("vf.mystery(d)", False),  # PTO053 points into the function
    "unknown-op-elsewhere": ("vf.mystery(r)", True),
    "tile-group-declared": ("g = pl.make_tile_group(type=None, addrs=0, mutex_ids=[9])", False),
    "helper-called": ("scale(r)", False),  # the helper is checked through the function
}


@pytest.mark.parametrize("extra", sorted(VF_EXTRAS))
def test_vector_functions_stay_text_unless_something_reports_into_them(monkeypatch, extra):
    line, stays = VF_EXTRAS[extra]
    text = VF_KERNEL.replace("VF_EXTRA", line)
    kept = {s.name for s in SourceFile.parse(text).module.body if isinstance(s, Verbatim) and s.vf is not None}
    assert kept == ({"copy_vf", "outer_vf"} if stays else set())  # outer_vf calls copy_vf: checked through it
    ours = transpile(text, preload=1, path="vf.py")
    whole = _without_skipping(monkeypatch, text, preload=1, path="vf.py")
    assert (ours.code, ours.diagnostics) == (whole.code, whole.diagnostics)
    def roles(result):
        return [(a.stage_index, a.buffer, a.role, a.pipe, a.op) for stage in result.loops[0].accesses for a in stage]
    assert roles(ours) == roles(whole) and ("x_db", "R", "V", "outer_vf") in [r[1:] for r in roles(ours)]


def test_a_decorator_not_of_pl_reads_the_file_whole(monkeypatch):
    text = VF_KERNEL.replace("VF_EXTRA", "pass").replace("@pl.vector_function\ndef outer_vf",
                                                         "@vector_function\ndef outer_vf")
    text = "from elsewhere import vector_function\n" + text
    src = SourceFile.parse(text)
    assert any(isinstance(s, Verbatim) and s.name == "outer_vf" for s in src.module.body)
    from pto_transpile.read.reader import read

    # `outer_vf` is bound to what a decorator of another module returns (unknown, not a helper of
    # the file): the reader parses everything after all
    file = read(src)
    assert isinstance(file.meaning("outer_vf"), Unknown) and "outer_vf" not in file.helpers
    assert not any(isinstance(s, Verbatim) for s in src.module.body)
    ours = transpile(text, preload=1, path="vf.py")
    whole = _without_skipping(monkeypatch, text, preload=1, path="vf.py")
    assert (ours.code, ours.diagnostics) == (whole.code, whole.diagnostics)


def test_python_and_libcst_readings_of_a_vector_function_agree():
    import ast

    from pto_transpile.read import vfbody
    def strip(body):
        """The items without the libcst node, which only the libcst reading keeps."""
        return [i.__class__(i.op, i.function, i.args) if isinstance(i, vfbody.OpCall) else i for i in body.items]

    texts = [VF_KERNEL.replace("VF_EXTRA", extra) for extra, _ in VF_EXTRAS.values()]
    texts.append((ROOT / "benchmarks" / "kernels" / "attention_kernel.py").read_text(encoding="utf-8"))
    checked = 0
    for text in texts:
        tree = cst.parse_module(text)
        for fn in tree.body:
            if isinstance(fn, cst.FunctionDef) and any("vector_function" in cst.Module([]).code_for_node(d)
                                                       for d in fn.decorators):
                ours = vfbody.from_ast(ast.parse(cst.Module([]).code_for_node(fn)).body[0])
                theirs = vfbody.from_cst(fn, find(fn.body, (cst.Assign, cst.Call)))
                assert (ours.name, ours.params, strip(ours)) == (theirs.name, theirs.params, strip(theirs))
                checked += 1
    assert checked >= 10
