"""Probe h160: two kinds of state an iteration hands the next that the comparison of iteration
starts did not see. In each kernel the cube stage is given `f`, and from `f >= 4096` on (the
twelfth tile) loads the tile of `out` the vector core stored one iteration before: serially
after the store, pipelined before it. Both were accepted and raced on the emulator from tile 12.

- Fields a struct gains one per iteration (`st.b2 = 1` once `getattr(st, "b1", 0)` finds `b1`,
  and so on to `b12`): each field was compared only with its own value at the previous start, so
  the set of fields, a counter in disguise, was never judged.
- A struct reached only from a function's default, in a tuple or list (`def g(t=(pl.struct(n=1),))`)
  or in a field of a struct default: the default's snapshot held a struct as a mark, or its
  fields' numbers alone.
"""

from __future__ import annotations

import pytest
from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile


def _kernel(before: str, body: str) -> str:
    return loads_out(before, body)


def _chain(fields: int) -> str:
    """`st.b{k} = 1` once `st.b{k-1}` is there: one field more per iteration."""
    lines = [f"        if getattr(st, 'b{k - 1}', 0):\n            st.b{k} = 1\n" for k in range(fields, 1, -1)]
    return "".join(lines) + "        st.b1 = 1\n" + f"        f: pl.DT_INT32 = 4096 * getattr(st, 'b{fields}', 0)\n"


#: the struct, made by a function: PTO088 refuses a field a struct made in the kernel was not made
#: with; these kernels test the check's own comparison of iteration starts, behind that rule
MADE = "    def made():\n        return pl.struct(a=0)\n\n    st = made()\n"


def test_fields_a_struct_gains_at_every_iteration_are_refused():
    errors = error_messages(transpile(_kernel(MADE, _chain(12)), path="k.py", preload=2))
    assert errors and "the fields `st` has change from one iteration of the loop to the next" in errors[0], errors


def test_a_field_added_in_the_first_iteration_alone_is_an_edge():
    body = "        st.b = 1\n        f: pl.DT_INT32 = 0 * st.b\n"
    assert error_messages(transpile(_kernel(MADE, body), path="k.py", preload=2)) == []


DEFAULTS = {
    "in a tuple": "def g(t=(pl.struct(n=1),)):\n        t[0].n = t[0].n * 2\n        return t[0].n\n",
    "in a list": "def g(t=[pl.struct(n=1)]):\n        t[0].n = t[0].n * 2\n        return t[0].n\n",
    "in a struct's field": "def g(s=pl.struct(inner=pl.struct(n=1))):\n        s.inner.n = s.inner.n * 2\n"
                           "        return s.inner.n\n",
}


@pytest.mark.parametrize("where", list(DEFAULTS))
def test_a_struct_only_a_default_holds_is_compared(where):
    text = _kernel("    " + DEFAULTS[where], "        f: pl.DT_INT32 = g()\n")
    errors = error_messages(transpile(text, path="k.py", preload=2))
    assert errors and "changes from one iteration of the loop to the next" in errors[0], errors


def test_a_struct_a_default_holds_unchanged_is_proven():
    text = _kernel("    def g(t=(pl.struct(n=1),)):\n        return t[0].n * 0\n", "        f: pl.DT_INT32 = g()\n")
    assert error_messages(transpile(text, path="k.py", preload=2)) == []
