"""Probe h167: state reached only through a struct held in a list, past what the comparison of
iteration starts walked (`probed.loads_out`: from `f >= 4096` on the cube loads what the vector
core stored one iteration before); both accepted and racing on the emulator at 16 tiles.

- A list default growing at the end of a chain of six functions, the first in a field of a
  struct in a list (`box = [st]`, `st.fn = g0`): a list of structs counted as a plain container,
  whose functions' defaults were not walked, and a function past four levels was compared by
  which it is alone.
- A counter in a struct that is a function's default, the function in such a field: a struct
  default was compared by its kind's name.
"""

from __future__ import annotations

from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile

BODY = "        h = box[0].fn\n        f: pl.DT_INT32 = (h() >= 14) * 4096\n        del h\n"


def _refused(before: str, words: str) -> None:
    errors = error_messages(transpile(loads_out(before, BODY), path="k.py", preload=2))
    assert errors and words in errors[0], errors


def test_a_growing_default_deep_in_a_chain_from_a_struct_in_a_list_is_refused():
    chain = "    def g5(b=[0]):\n        b.append(1)\n        return len(b)\n\n" + "".join(
        f"    def g{k}(fn=g{k + 1}):\n        return fn()\n\n" for k in range(4, -1, -1))
    _refused(chain + "    st = pl.struct(k=0, fn=0)\n    st.fn = g0\n    box = [st]\n"
             "    del g0, g1, g2, g3, g4, g5, st\n", "nested more than 4 deep")


def test_a_counter_in_a_struct_default_of_a_function_in_a_struct_in_a_list_is_refused():
    _refused("    inner = pl.struct(n=1)\n\n    def g(s=inner):\n        s.n = s.n + 1\n        return s.n\n\n"
             "    st = pl.struct(k=0, fn=0)\n    st.fn = g\n    box = [st]\n    del g, st, inner\n",
             "the default of `s` of `box[0].fn` changes from one iteration of the loop to the next")
