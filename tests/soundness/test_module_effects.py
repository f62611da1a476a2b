"""A probe's 33 kernels accepted and racing although the module, as Python runs it, is not what
its statements say: the tiling-key class changed through an alias (`K2 = K; K2.A = ...`),
`type(K()).A`, a parenthesised target, a call in a class body or a comprehension, `for K.A in`,
a tuple target or an annotated one; a decorator, `staticmethod`, `object` or `TilingKeyField`
rebound; a walrus or a class-body name in the key class; `is_valid(self, *args)`; a function's
defaults set through an alias; `global` after a semicolon or on a one-line `def`; a list
changed through a call in a class body, a comprehension, base classes, `getattr` or a
parenthesised, tuple or `for` target; a namespace reached by a computed attribute name or
through `__builtins__`. Each is refused now: the whole file is read, as Python's parser has it,
for what can change an object at all (`read/effects.py`), not for what a name spells.
Production-style files beside them (a stage list, a kernel registry, an attribute set on a
helper, `@dataclass` tiling data, a key class with `__repr__`) are accepted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_module_state import BASE, _verdicts
from test_module_state import keyed as _keyed

from helpers import edited
from pto_transpile import transpile

DEFECT = "    if d == 7:\n        pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])\n"
_K01 = "class K:\n    A = TilingKeyField(bits=1, values=[0, 1])\n{body}\n\n"
_K0 = "class K:\n    A = TilingKeyField(bits=1, values=[0])\n\n"


def keyed(cls: str, test: str, before_cls: str = "", after_cls: str = "") -> str:
    return _keyed(cls, test, before=before_cls, after=after_cls)


def flag(module_code: str, test: str = "FLAG == 1", pre: str = "FLAG = 0\n") -> str:
    return edited(BASE, [("N = 4\n", "N = 4\n" + pre + module_code), ("if d == 7:", f"if {test}:")])


H: dict = {}
_MUT = "def mutate(c):\n    c.A = TilingKeyField(bits=1, values=[0, 1])\n    return c\n\n\n"
H.update(
    {
        # --- tiling key class changed after its statement, around the text scan
        "tk: alias K2 = K; K2.A = ...": (
            keyed(_K0, "A == 1", after_cls="K2 = K\nK2.A = TilingKeyField(bits=1, values=[0, 1])\n")
        ),
        "tk: type(K()).A = ...": (
            keyed(_K0, "A == 1", after_cls="type(K()).A = TilingKeyField(bits=1, values=[0, 1])\n")
        ),
        "tk: (K).A in a function called at module level": (
            keyed(
                _K0,
                "A == 1",
                after_cls="def setup():\n    (K).A = TilingKeyField(bits=1, values=[0, 1])\n\n\nsetup()\n",
            )
        ),
        "tk: mutate(K) in a class body": (
            keyed(_K0, "A == 1", after_cls=_MUT + "class _Init:\n    k = mutate(K)\n\n\n")
        ),
        "tk: mutate(c) for c in [K] comprehension": (
            keyed(_K0, "A == 1", after_cls=_MUT + "_ = [mutate(c) for c in [K]]\n")
        ),
        "tk: dataclass rebound to a mutating function": (
            keyed(
                "@dataclass\n" + _K0,
                "A == 1",
                before_cls="def dataclass(c):\n    c.A = TilingKeyField(bits=1, values=[0, 1])\n    return c\n\n\n",
            )
        ),
        "tk: staticmethod rebound": (
            keyed(
                _K01.format(body="    @staticmethod\n    def is_valid(key):\n        return key[0] == 0\n"),
                "A == 1",
                before_cls="def staticmethod(f):\n    return lambda self, key: True\n\n\n",
            )
        ),
        "tk: walrus in the class body rebinds A": (
            keyed(
                "class K:\n"
                "    A = TilingKeyField(bits=1, values=[0])\n"
                "    (A := TilingKeyField(bits=1, values=[0, 1]))\n"
                "\n",
                "A == 1",
            )
        ),
        "tk: walrus in the class body rebinds is_valid": (
            keyed(
                _K01.format(
                    body="    def is_valid(self, key):\n"
                    "        return key[0] == 0\n"
                    "    (is_valid := lambda self, key: True)\n"
                ),
                "A == 1",
            )
        ),
        "tk: values from a class-body name shadowing a module name": (
            keyed(
                "class K:\n    VALS = [0, 1]\n    A = TilingKeyField(bits=1, values=VALS)\n\n",
                "A == 1",
                before_cls="VALS = [0]\n",
            )
        ),
        "tk: is_valid default from a class-body name": (
            keyed(
                _K01.format(
                    body="    LIM = 1\n"
                    "\n"
                    "    def is_valid(self, key, lim=LIM):\n"
                    "        (a,) = key\n"
                    "        return a <= lim\n"
                ),
                "A == 1",
                before_cls="LIM = 0\n",
            )
        ),
        "tk: is_valid(self, *args) read self as the key": (
            keyed(_K01.format(body="    def is_valid(self, *args):\n        return self != (1,)\n"), "A == 1")
        ),
        "tk: TilingKeyField rebound to add values": (
            keyed(
                _K0,
                "A == 1",
                before_cls="_TKF = TilingKeyField\n"
                "\n"
                "\n"
                "def TilingKeyField(bits, values):\n"
                "    return _TKF(bits=bits, values=[0, 1])\n"
                "\n"
                "\n",
            )
        ),
        "tk: object rebound to a base whose __init__ sets is_valid": (
            keyed(
                "class K(object):\n"
                "    A = TilingKeyField(bits=1, values=[0, 1])\n"
                "\n"
                "    def is_valid(self, key):\n"
                "        return key[0] == 0\n"
                "\n"
                "\n",
                "A == 1",
                before_cls="class _Base:\n"
                "    def __init__(self):\n"
                "        self.is_valid = lambda key: True\n"
                "\n"
                "\n"
                "object = _Base\n",
            )
        ),
        # --- module names
        "mod: alias g = getflag; g.__defaults__": (
            flag("def getflag(x=0):\n    return x\n\n\ng = getflag\ng.__defaults__ = (1,)\n", "getflag() == 1", pre="")
        ),
        "mod: dataclass-named decorator returning another function": (
            flag(
                "def one():\n"
                "    return 1\n"
                "\n"
                "\n"
                "def dataclass(f):\n"
                "    return one\n"
                "\n"
                "\n"
                "@dataclass\n"
                "def getflag():\n"
                "    return 0\n"
                "\n"
                "\n",
                "getflag() == 1",
                pre="",
            )
        ),
        "mod: one-line def with global": (flag("def setup(): global FLAG; FLAG = 1\n\n\nsetup()\n")),
        "mod: global after a semicolon": (flag("def setup():\n    x = 0; global FLAG\n    FLAG = 1\n\n\nsetup()\n")),
        "mod: list changed by a call in a class body": (
            flag("def mut(c):\n    c[0] = 1\n\n\nclass _Init:\n    m = mut(L)\n\n\n", "L[0] == 1", pre="L = [0]\n")
        ),
        "mod: list changed by a comprehension's call": (
            flag("def mut(c):\n    c[0] = 1\n\n\n_ = [mut(c) for c in [L]]\n", "L[0] == 1", pre="L = [0]\n")
        ),
        "mod: (L)[0] = 1 in a function called at module level": (
            flag("def setup():\n    (L)[0] = 1\n\n\nsetup()\n", "L[0] == 1", pre="L = [0]\n")
        ),
        "mod: getattr(L, 'append') in a function": (
            flag("def setup():\n    getattr(L, 'append')(1)\n\n\nsetup()\n", "len(L) == 2", pre="L = [0]\n")
        ),
        "mod: getflag defaults via a function called at module level": (
            flag(
                "def getflag(x=0):\n    return x\n\n\ndef setup():\n    (getflag).__defaults__ = (1,)\n\n\nsetup()\n",
                "getflag() == 1",
                pre="",
            )
        ),
        "mod: class bases expression mutates": (
            flag(
                "def mut(c):\n    c[0] = 1\n    return object\n\n\nclass _X(mut(L)):\n    pass\n\n\n",
                "L[0] == 1",
                pre="L = [0]\n",
            )
        ),
    }
)

_BAD_STAGE = (
    "def _bad(ki, d, sub_id, out, c_vec_db, y_db, a):\n    c_vec = c_vec_db.next()\n    y = y_db.next()\n"
    "    pl.relu(y, c_vec)\n    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"
    "    pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])\n\n\n"
)
H.update(
    {
        "mod: FLAG through getattr(f, '__glo' + 'bals__')": (
            flag("def _f():\n    pass\n\n\ngetattr(_f, '__glo' + 'bals__')['FLAG'] = 1\n")
        ),
        "mod: __builtins__['abs'] replaced": (flag("__builtins__['abs'] = lambda x: 1\n", "abs(0) == 1", pre="")),
        "mod: stage under a `dataclass` decorator returning another stage": (
            edited(
                BASE,
                [
                    (
                        "@pl.pipeline.stage\ndef scale_store",
                        _BAD_STAGE + "def dataclass(f):\n"
                        "    return pl.pipeline.stage(_bad)\n"
                        "\n"
                        "\n"
                        "@dataclass\n@pl.pipeline.stage\ndef scale_store",
                    ),
                    (DEFECT, ""),
                ],
            )
        ),
        "tk: is_valid reads a module list changed by is_valid's helper": (
            keyed(
                _K01.format(body="    def is_valid(self, key):\n        return key[0] <= LIM[0]\n"),
                "A == 1",
                before_cls="LIM = [0]\n",
                after_cls="def _grow(x):\n    x[0] = 1\n\n\n_ = [_grow(x) for x in [LIM]]\n",
            )
        ),
    }
)


@pytest.mark.parametrize("name", list(H))
def test_what_changes_a_module_object_anywhere_in_the_file_is_seen(name):
    text = H[name]
    found = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert found, "accepted"


@pytest.mark.parametrize(
    "name", ["mod: (L)[0] = 1 in a function called at module level", "mod: one-line def with global"]
)
def test_the_emulator_shows_them_race(name):
    # the defect: a store into the next task's rows under a test that is true once the module has run
    assert _verdicts(H[name], d=0) == ["ok", "race"]


TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
_TS_CLS = "class EpilogueKey:\n    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])\n"
PRODUCTION = {
    "a kernel registry": TILED + "\n\nKERNELS = {'tiled_scale': tiled_scale_kernel}\n",
    "a stage list": TILED + "\n\nSTAGES = [project, finish]\n",
    "an attribute set on a helper": edited(
        TILED,
        [
            (
                "\n\n@pl.pipeline.stage\ndef project",
                "\n\nepilogue.__doc__ = 'scale then relu'\n\n\n@pl.pipeline.stage\ndef project",
            )
        ],
    ),
    "a key class with __repr__": edited(
        TILED, [(_TS_CLS, _TS_CLS + "\n    def __repr__(self):\n        return 'K'\n")]
    ),
    "a key class with a constant": edited(
        TILED,
        [
            (
                _TS_CLS,
                "class EpilogueKey:\n    MAX = 2\n    ApplyRelu = TilingKeyField(bits=1, values=list(range(MAX)))\n",
            )
        ],
    ),
    "values from a module constant": edited(
        TILED,
        [(_TS_CLS, "RELU = [0, 1]\n\n\nclass EpilogueKey:\n    ApplyRelu = TilingKeyField(bits=1, values=RELU)\n")],
    ),
    "the key handed to a helper of the file": TILED + "\n\ndef describe(k):\n    return k.__name__\n\n\n"
    "KEY_NAME = describe(EpilogueKey)\n",
    "__all__": TILED + "\n\n__all__ = ['tiled_scale_kernel', 'EpilogueKey']\n",
}


@pytest.mark.parametrize("name", list(PRODUCTION))
def test_production_files_are_accepted(name):
    assert [d.message for d in transpile(PRODUCTION[name], path="k.py").diagnostics if d.is_error] == []
