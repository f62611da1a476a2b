"""The fast walk visits what libcst's own traversal visits, in the same (source) order."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from helpers import spread
from pto_transpile.read.walk import iter_nodes

ROOT = Path(__file__).resolve().parent.parent.parent

#: Layout the walk skips on purpose: whitespace, comments, punctuation, brackets, `async`.
LAYOUT = (cst.BaseParenthesizableWhitespace, cst.EmptyLine, cst.TrailingWhitespace, cst.Comment, cst.Newline,
          cst.Comma, cst.Semicolon, cst.Colon, cst.Dot, cst.AssignEqual, cst.Asynchronous,
          cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
          cst.LeftCurlyBrace, cst.RightCurlyBrace)

#: Every statement and expression form, type parameters included (parsed as Python 3.12).
EVERY_FORM = '''
import a.b as c
from ..x import (y as z, w)
@dec(1)
async def f[T: int, *Ts, **P](a, /, b: int = 1, *args: T, c, d=2, **kw) -> T:
    """doc"""
    x = lambda p, *q, r=1, **s: p if q else r
    y = [i for i in range(3) if i for j in i]
    z = {k: v for k, v in d.items()}
    w = {i async for i in q}
    v = (yield x)
    await g(*a, **k, key=1)
    try:
        pass
    except (E, F) as err:
        raise X from err
    else:
        pass
    finally:
        pass
    try:
        pass
    except* G as e2:
        pass
    with a as b, c as d:
        pass
    async for i in j:
        break
    while (n := x):
        continue
    else:
        pass
    global gg
    del a[1:2:3], b.c
    assert x, "m"
    match p:
        case [1, *rest] if rest:
            pass
        case {"k": v, **kw}:
            pass
        case Point(x=0, y=yy) | None as alt:
            pass
    a: int = 1
    a += 1
    s = f"a{b!r:>{w}}c" "d"
    t = x[1, 2:3]
    u = not a and b or c < d <= e is not f
    return ~-x ** 2 @ y
class C[T](B, metaclass=M):
    type Alias[U] = list[U]
'''


class _Collect(cst.CSTVisitor):
    def __init__(self):
        self.seen: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, LAYOUT):
            return False
        self.seen.append(node)
        return True


def _corpus():
    """Every form, then the golden files (the generated outputs, which repeat the same node
    types many times over, in the campaign but for a sample)."""
    yield pytest.param(None, id="every-form")
    # the examples are golden inputs too (tests/test_golden.py checks it): each text once
    yield from [pytest.param(p, id=str(p.relative_to(ROOT))) for p in sorted(ROOT.glob("golden/*/input.py"))]
    outputs = sorted(p for p in ROOT.glob("golden/*/expected_*.py"))
    yield from spread([pytest.param(p, id=str(p.relative_to(ROOT))) for p in outputs], 4)


def _parsed(path) -> cst.Module:
    if path is None:
        return cst.parse_module(EVERY_FORM, config=cst.PartialParserConfig(python_version="3.12"))
    return cst.parse_module(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", list(_corpus()))
def test_walk_matches_libcst_traversal(path):
    module = _parsed(path)
    collector = _Collect()
    module.visit(collector)
    ours = list(iter_nodes(module))
    theirs = collector.seen
    # the common prefix first, so a missing or extra node is reported where it happens
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        assert a is b, f"node {i}: walk gives {type(a).__name__}, libcst {type(b).__name__}"
    assert len(ours) == len(theirs)


def test_every_form_covers_type_parameters():
    module = cst.parse_module(EVERY_FORM, config=cst.PartialParserConfig(python_version="3.12"))
    kinds = {type(n) for n in iter_nodes(module)}
    assert {cst.TypeParameters, cst.TypeVar, cst.TypeVarTuple, cst.ParamSpec, cst.TypeAlias} <= kinds


def test_node_index_finds_what_find_finds():
    """One walk per root answers `find` for any node below it, nested functions skipped alike."""
    import itertools

    from golden_cases import cases
    from pto_transpile.read.walk import NodeIndex, find

    text = "\n".join((c / "input.py").read_text(encoding="utf-8") for c in cases()) + (
        "\ndef outer(a):\n    def inner(b):\n        return f(b)\n    g = lambda c: h(c)\n    return k(a)\n")
    module = cst.parse_module(text)
    index = NodeIndex(module.body)
    kinds = [cst.Call, cst.Name, cst.Assign, cst.Return, (cst.Call, cst.Subscript), cst.BaseExpression,
             (cst.AssignTarget, cst.AugAssign, cst.For, cst.AsName)]
    nodes = list(iter_nodes(module))
    for node, kind, skip in itertools.product(nodes[1::37], kinds, (False, True)):
        assert index.find(node, kind, skip) == find(node, kind, skip)
    outer = module.body[-1]
    assert [c.func.value for c in index.find(outer, cst.Call, skip_functions=True)] == ["k"]
    elsewhere = cst.Name("elsewhere")  # below no root: walked
    assert index.find(elsewhere, cst.Name) == [elsewhere]


def test_find_gives_what_isinstance_picks():
    """`find` remembers which node types are of a kind; what it gives is what `isinstance` picks,
    for abstract kinds, tuples of kinds and concrete ones, with nested functions skipped or not."""
    from pto_transpile.read.walk import find

    module = _parsed(None)
    kinds = [cst.BaseExpression, cst.BaseSmallStatement, (cst.Call, cst.Subscript), cst.Name, cst.BaseNumber,
             (cst.FunctionDef, cst.Lambda, cst.ClassDef)]
    for kind in kinds:
        for skip in (False, True):
            picked = [n for n in iter_nodes(module, skip) if isinstance(n, kind)]
            assert find(module, kind, skip) == picked and (picked or skip), kind


def test_node_index_paths_match_a_walk():
    from golden_cases import cases
    from pto_transpile.emit.rewrite import _paths_to
    from pto_transpile.read.walk import NodeIndex

    module = cst.parse_module((cases()[0] / "input.py").read_text(encoding="utf-8"))
    index = NodeIndex(module.body)
    kernel = next(s for s in module.body if isinstance(s, cst.FunctionDef) and s.decorators)
    targets = list(iter_nodes(kernel))[5::53] + [module.body[0]]  # one in another statement
    assert index.paths_to(kernel, targets) == _paths_to(kernel, targets)
    assert index.paths_to(cst.Name("x"), targets) is None
