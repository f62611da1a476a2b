"""Probe h202: a stage reading a module name it binds later in its body (`HALF` read in the store's
offset, then `HALF = TILE // 2`) was run with the module's value, and accepted; Python takes the
name for the function's own in its whole body and raises UnboundLocalError at the read (serially
and pipelined alike). It is refused now, naming the name; one the function declares `global`, or
binds only in a nested function or comprehension, is the module's."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile

STORE = "    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n"


@pytest.mark.parametrize("after", ["    HALF = TILE // 2\n", "    for HALF in range(1):\n        pass\n",
                                   "    del HALF\n", "    from math import pi as HALF\n",
                                   "    _ = [(HALF := k) for k in range(1)]\n", "    _ = pl.min(1, (HALF := 1))\n"])
def test_a_module_name_the_stage_binds_later_is_its_own(after):
    text = edited(kernel("dynamic_rows.py"), [(STORE, STORE + after)])
    errors = error_messages(transpile(text, path="k.py"))
    assert errors and "`HALF` is read where the function has not bound it yet" in errors[0], errors


@pytest.mark.parametrize("after", ["    _ = [HALF for HALF in range(1)]\n",
                                   "    def inner():\n        HALF = 1\n        return HALF\n"])
def test_a_name_bound_in_another_scope_is_the_modules(after):
    text = edited(kernel("dynamic_rows.py"), [(STORE, STORE + after)])
    assert not any("is read where the function has not bound it yet" in m
                   for m in error_messages(transpile(text, path="k.py")))


def test_a_name_declared_global_is_the_modules():
    text = edited(kernel("dynamic_rows.py"), [(STORE, "    global HALF\n" + STORE + "    HALF = TILE // 2\n")])
    assert not any("is read where the function has not bound it yet" in m
                   for m in error_messages(transpile(text, path="k.py")))


@pytest.mark.campaign  # (slow: the default tier stays within five minutes on two cores)
def test_the_names_read_without_entering_expressions_are_the_same():
    """Without a `:=` in the file, `_own_locals` does not enter expressions; what it finds is what
    the whole walk finds, on every function of the bundled examples and their generated kernels."""
    import libcst as cst

    from helpers import ROOT
    from pto_transpile.soundness.pysubset import _own_locals

    seen = 0
    for path in sorted((ROOT / "examples").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        result = transpile(text, path=path.name, preload=1)
        for code in (text, result.code or ""):
            if ":=" in code:
                continue
            for fn in (n for n in cst.parse_module(code).body if type(n) is cst.FunctionDef):
                assert _own_locals(fn, walrus=False) == _own_locals(fn, walrus=True), (path.name, fn.name.value)
                seen += 1
    assert seen > 20
