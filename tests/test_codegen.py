"""The fast printer writes exactly what libcst's code generation writes."""

import subprocess
from pathlib import Path

import libcst as cst
import pytest

import pto_transpile.api as api
from helpers import spread
from pto_transpile import codegen

ROOT = Path(__file__).resolve().parent.parent

TRICKY = [
    "x = 1; y = 2;  # two statements\n",
    "if a:\n    pass\nelif b:  # elif\n    x = (1,)\nelif c:\n    pass\nelse:\n    y = [ *z ]\n",
    "with open(f) as g, h() as (i, j):\n    pass\n",
    "with (\n    a() as b,\n    c() as d,\n):\n    pass\n",
    "with a(), b():\n\tpass\n",
    "with (a()):\n    pass\n",
    "async def f(a, /, b: int = 1, *c, d, **e) -> 'x':\n"
    "    async with a:\n        async for i in b:\n            pass\n",
    "def f[T](x: T) -> T:\n    return x\n",
    "@dec  # on a decorator\n\n@pkg.dec(1, k = 2)\ndef g(\n    a,  # first\n    b,\n):\n    return (a  +  b)\n",
    "call(a,\n     # a comment line\n\n     b, *args, key=value, **kw)\n",
    "x = a[1:2, ::3, b][0]\n",
    "y = -a ** ~b if not c else lambda q: q\n",
    "z = (1, 2), (3,), ()\n",
    "w = a is not b and c not in d or e < f <= g != h\n",
    "v = {1: 2, **m}; u = {1, 2}; t = f'{x!r:>{w}}'\n",
    "for i, j in zip(a, b):\n    continue\nelse:\n    break\n",
    "while x:\n    x -= 1\n",
    "try:\n    pass\nexcept E as e:\n    raise\nfinally:\n    del x\n",
    "class C(B, metaclass=M):\n    '''doc'''\n    a: int = 1\n",
    "s = ('implicit'\n     'concatenation')\n",
    "x = 1\r\ny = 2\r\n",
    "if x:\n        deep = 1\n        if y:\n          odd = 2\n",
    "x = 1",
    "",
    "\n\n# only a comment\n",
    "def f():\n    pass\n\n\n\n# trailing comment\n",
    "a = (  # after paren\n    1\n    + 2\n)\n",
    "print(*a, sep='')\n",
    "x[...] = y @ z\n",
    "import a.b as c\nfrom . import (d, e,)\n",
    "with a() as b:\n    pass\n",
    "with a() as b, c:\n    pass\n",
]


@pytest.mark.parametrize("source", TRICKY)
def test_matches_libcst_on_tricky_code(source):
    module = cst.parse_module(source)
    assert codegen.code(module) == module.code
    for stmt in module.body:
        assert codegen.code_for_node(module, stmt) == module.code_for_node(stmt)


def _repository_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=False).stdout
    files = out.split() or [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py") if ".venv" not in p.parts]
    return sorted(files)


@pytest.mark.parametrize("name", spread(_repository_files(), 16))
def test_matches_libcst_on_every_python_file_of_the_repository(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        pytest.skip("not Python libcst reads")
    assert codegen.code(module) == module.code


def test_the_repository_has_files_to_compare():
    assert len(_repository_files()) > 100


@pytest.mark.parametrize("every_preload", [False, pytest.param(True, marks=pytest.mark.campaign)])
def test_matches_libcst_on_generated_kernels(monkeypatch, every_preload):
    """Every statement of every rewritten module, for every example and golden input: at
    preloads 0, 1 and 2 each in the campaign, at one of them each (in turn) by default."""
    rewritten = []
    original = api._rewrite_kernels

    def keep(*args):
        module = original(*args)
        rewritten.append(module)
        return module

    monkeypatch.setattr(api, "_rewrite_kernels", keep)
    inputs = sorted((ROOT / "examples").glob("*.py")) + sorted((ROOT / "golden").glob("*/input.py"))
    for i, path in enumerate(inputs):
        for preload in (0, 1, 2) if every_preload else (i % 3,):
            api.transpile(path.read_text(encoding="utf-8"), path=str(path), preload=preload)
    statements = [(m, s) for m in rewritten for s in m.body if isinstance(s, cst.CSTNode)
                  and type(s).__name__ != "Verbatim"]
    assert len(statements) > (500 if every_preload else 150)
    for module, stmt in statements:
        assert codegen.code_for_node(module, stmt) == module.code_for_node(stmt)
