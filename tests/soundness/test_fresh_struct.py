"""A struct built afresh at the top of every iteration (`st = pl.struct(g=0.5 * ki + 1.0)`) carries
nothing: what the name held at the iteration's start, the struct of the iteration before, is read
by nothing (probe h108: refused as a field that carries a value, with a fix the kernel already
followed). A struct rebuilt from what the name held, through the name, an alias or a function
that reads it, still carries its fields and is judged as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

FRESH = kernel_text(Path(__file__).parent / "kernels" / "h108_fresh_struct_per_iteration.py")
BINDING = "        st = pl.struct(g=0.5 * ki + 1.0)\n"


def test_a_struct_bound_afresh_before_any_read_carries_nothing():
    result = transpile(FRESH, path="k.py")
    assert error_messages(result) == [], error_messages(result)
    for n in (3, 10):
        report = verify(FRESH, result.code, "kernel", shapes={"a": (32 * n, 32), "out": (32 * n, 32)},
                        scalars={"n": n})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("binding, words", [
    # the struct before it, read through the name, or through an alias
    ("        st = pl.struct(g=st.g + 0.5)\n", "carries a value from one iteration to the next"),
    ("        x = st.g\n        st = pl.struct(g=x + 0.5)\n", "carries a value from one iteration to the next"),
    ("        prev = st\n        st = pl.struct(g=prev.g + 0.5)\n", "carries a value from one iteration to the next"),
    # through a function that reads the name (refused as such first)
    ("        st = pl.struct(g=last_g() + 0.5)\n", "`last_g` reads `st` of the function around it"),
    # only in some iterations
    ("        if ki % 2 == 0:\n            st = pl.struct(g=0.5 * ki)\n", "carries a value from one iteration"),
])
def test_a_struct_rebuilt_from_the_one_before_still_carries(binding, words):
    edits = [(BINDING, binding)]
    if "last_g" in binding:
        closure = "    def last_g():\n        return st.g\n\n"
        edits.append(("    st = pl.struct(g=0.0)\n", f"    st = pl.struct(g=0.0)\n\n{closure}"))
    messages = error_messages(transpile(edited(FRESH, edits), path="k.py"))
    assert messages and words in messages[0], messages


def test_a_keyword_or_attribute_spelt_as_a_local_is_no_read_of_it():
    """`pl.struct(a=0)` and `x.st` in a nested function read no `a` or `st` of the function around it
    (the kernel's tensor `a`, its struct `st`): refused as closure reads, the fix named was already
    there (probe h160's kernels, made by a function)."""
    closure = "    def fresh(x):\n        return pl.struct(a=0, g=x.st)\n\n"
    text = edited(FRESH, [("    st = pl.struct(g=0.0)\n", f"    st = pl.struct(g=0.0)\n\n{closure}")])
    assert not any("of the function around it" in m for m in error_messages(transpile(text, path="k.py")))
