"""Printing without position bookkeeping writes exactly what libcst's own printing writes, on
tricky layout and on a reviewed golden output of every case."""

from __future__ import annotations

import libcst as cst
import pytest

from golden_cases import cases
from pto_transpile.read.printing import code_in, code_of

#: Layout a printer could get wrong: semicolons, elif chains, parenthesised with-items, tabs,
#: comments on decorators and in brackets, CRLF, no final newline, an empty file.
TRICKY = [
    "x = 1; y = 2;  # two statements\n",
    "if a:\n    pass\nelif b:  # elif\n    x = (1,)\nelse:\n    y = [ *z ]\n",
    "with (\n    a() as b,\n    c() as d,\n):\n    pass\n",
    "with a(), b():\n\tpass\n",
    "@dec  # on a decorator\n\n@pkg.dec(1, k = 2)\ndef g(\n    a,  # first\n    b,\n):\n    return (a  +  b)\n",
    "call(a,\n     # a comment line\n\n     b, *args, key=value, **kw)\n",
    "y = -a ** ~b if not c else lambda q: q\n",
    "v = {1: 2, **m}; u = {1, 2}; t = f'{x!r:>{w}}'\n",
    "x = 1\r\ny = 2\r\n",
    "x = 1",
    "",
    "def f():\n    pass\n\n\n\n# trailing comment\n",
]


def _same(module: cst.Module) -> None:
    assert code_in(module, module) == module.code
    for stmt in module.body:
        assert code_in(module, stmt) == module.code_for_node(stmt)


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_layout(text: str) -> None:
    _same(cst.parse_module(text))


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_every_golden_output(case) -> None:
    path = min(case.glob("expected_*.py"))  # one per case: the goldens differ in their generated loops only
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    _same(module)
    assert code_of(module.body[-1]) == cst.Module([]).code_for_node(module.body[-1])
