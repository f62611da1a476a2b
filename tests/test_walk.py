"""The fast walk visits what libcst's own traversal visits, in the same (source) order."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from pto_transpile.walk import iter_nodes

ROOT = Path(__file__).resolve().parent.parent

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
    yield pytest.param(cst.parse_module(EVERY_FORM, config=cst.PartialParserConfig(python_version="3.12")),
                       id="every-form")
    for path in sorted([*ROOT.glob("examples/*.py"), *ROOT.glob("golden/*/*.py")]):
        yield pytest.param(cst.parse_module(path.read_text(encoding="utf-8")), id=str(path.relative_to(ROOT)))


@pytest.mark.parametrize("module", list(_corpus()))
def test_walk_matches_libcst_traversal(module):
    collector = _Collect()
    module.visit(collector)
    ours = list(iter_nodes(module))
    theirs = collector.seen
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a is b, f"node {i}: walk gives {type(a).__name__}, libcst {type(b).__name__}"
    assert len(ours) == len(theirs)


def test_every_form_covers_type_parameters():
    module = cst.parse_module(EVERY_FORM, config=cst.PartialParserConfig(python_version="3.12"))
    kinds = {type(n) for n in iter_nodes(module)}
    assert {cst.TypeParameters, cst.TypeVar, cst.TypeVarTuple, cst.ParamSpec, cst.TypeAlias} <= kinds
