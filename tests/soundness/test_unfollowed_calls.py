"""A `pl` op spelled so that the check cannot see it is one, or run where the check does
not go, must not be skipped: the store below writes the next task's rows of `a`, which the
cube stage loads, so the pipelined kernel races (the emulator reports it) whatever spelling
hides it. Each spelling is followed as the op it is, or refused naming the construct."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_transpile import transpile

KERNEL = (Path(__file__).parent / "kernels" / "branch_on_param.py").read_text()
GUARDED = "    if d == 7:\n        pl.store(a, y, [(ki + 1) * TILE + sub_id * HALF, 0])\n"
ARGS = "a, y, [(ki + 1) * TILE + sub_id * HALF, 0]"
HEAD = "N = 4\n"


def _spelled(call: str, module: str = "") -> str:
    assert GUARDED in KERNEL and HEAD in KERNEL
    return KERNEL.replace(GUARDED, call.replace("ARGS", ARGS) + "\n").replace(HEAD, HEAD + module, 1)


FOLLOWED = {  # the op itself, under another name or in a statement that runs it
    "local alias": ("    st = pl.store\n    st(ARGS)", ""),
    "tuple of ops": ("    OPS[0](ARGS)", "OPS = (pl.store,)\n"),
    "default argument": ("    put(ARGS)", "def put(o, y, r, f=pl.store):\n    f(o, y, r)\n"),
    "assert": ("    assert pl.store(ARGS) is None", ""),
    "walrus": ("    (x := pl.store(ARGS))", ""),
    "finally": ("    try:\n        pass\n    finally:\n        pl.store(ARGS)", ""),
    "else of try": ("    try:\n        pass\n    except ValueError:\n        pass\n"
                    "    else:\n        pl.store(ARGS)", ""),
    "static method": ("    H.put(ARGS)",
                      "class H:\n    @staticmethod\n    def put(o, y, r):\n        pl.store(o, y, r)\n"),
}
REFUSED = {  # what the check does not run: named
    "getattr": ("    getattr(pl, 'store')(ARGS)", "", "hands `pl` on, which the check cannot follow"),
    "module alias": ("    P.store(ARGS)", "P = pl\n", "what `P.store` does with tensor `a`"),
    "dict of ops": ("    OPS['s'](ARGS)", "OPS = {'s': pl.store}\n", "what `OPS['s']` does with tensor `a`"),
    "comprehension": ("    [pl.store(ARGS) for _ in (0,)]", "", "calls inside a `ListComp` expression"),
    "f-string": ("    _ = f'{pl.store(ARGS)}'", "", "calls inside a `FormattedString` expression"),
    "except block": ("    try:\n        pass\n    except ValueError:\n        pl.store(ARGS)", "",
                     "an `except` block that calls something"),
    # found by a second probe: a function handed to a call, or a handle hidden from one
    "sorted key": ("    sorted([0], key=lambda _: pl.store(ARGS))", "", "`sorted` is given a function"),
    "max key": ("    max([0], key=lambda _: pl.store(ARGS))", "", "`max` is given a function"),
    "lambda called": ("    (lambda: pl.store(ARGS))()", "", "the check does not run lambdas"),
    "dunder call": ("    pl.store.__call__(ARGS)", "", "reaches into the `pl` module through `pl.store.__call__`"),
    "decorated def": ("    @run_it\n    def g():\n        pl.store(ARGS)", "def run_it(f):\n    f()\n",
                      "`g` is decorated inside a function"),
    "context manager": ("    with CM(ARGS):\n        pass", "class CM:\n    pass\n",
                        "the check does not follow `with CM("),
    "handle in a dict": ("    boxes.put({'o': a})", "import boxes\n", "what `boxes.put` does with tensor `a`"),
    "handle in an object": ("    b = Box()\n    b.o = a", "class Box:\n    pass\n", "tensor `a` is kept in `b.o`"),
}


def _errors(result) -> list:
    return [d for d in result.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("name", sorted(FOLLOWED))
def test_an_op_under_another_spelling_is_followed_and_its_race_found(name):
    call, module = FOLLOWED[name]
    result = transpile(_spelled(call, module), path="spelled.py")
    assert result.code is None
    (error,) = _errors(result)
    assert "`pl.store` on MTE3 of AIV0 writes `a[32:48, 0:32]`" in error.message, error.message
    assert "`pl.load` on MTE2 of AIC reads `a[32:64, 0:32]`" in error.message


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_the_check_does_not_run_is_refused_naming_it(name):
    call, module, words = REFUSED[name]
    result = transpile(_spelled(call, module), path="spelled.py")
    assert result.code is None
    (error,) = _errors(result)
    assert words in error.message, error.message
    assert "a `pl` op reached otherwise than by its name" in error.hint


def test_calls_that_touch_no_handle_stay_harmless():
    # an unknown call given only numbers, and a lambda defined but never called, change nothing
    text = _spelled("    _ = str(ki)\n    g = lambda: pl.store(ARGS)\n"
                    "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])")
    assert _errors(transpile(text, path="harmless.py")) == []


def test_a_construct_the_check_does_not_follow_is_not_called_dynamic():
    """A refusal of something the check does not compute names it, and its hint does not ask
    for a static kernel (everything here is static already)."""
    result = transpile(_spelled("    _ = 2 ** (1 << 70)"), path="huge.py")
    (error,) = _errors(result)
    assert "a power with exponent 1180591620717411303424 (at most 4096), too large to follow" in error.message
    assert "static" not in error.hint and "write what the message names in a form it follows" in error.hint
