"""Probe h163: two more places an iteration handed the next a value never judged. In each
kernel the cube stage is given `f`, and from `f >= 4096` on (the twelfth or thirteenth tile)
loads the tile of `out` the vector core stored one iteration before: serially after the store,
pipelined before it. Both were accepted and raced on the emulator from tile 12.

- Which function a name holds, a `def` in the loop body choosing among thirteen by what the one
  before returned (`k = g()`, then `if k == 0: def g(): return 1 ...`): a `def` was no binding
  to the walk that lists what the body binds.
- A list default growing at the end of a chain of eleven functions, each the next's default
  (`def g9(x=g10)`, ..., `fn = g0`): the defaults were followed four functions deep, silently.
"""

from __future__ import annotations

from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile


def _kernel(before: str, body: str) -> str:
    return loads_out(before, body)


def test_a_def_in_the_loop_body_choosing_the_next_function_is_refused():
    chain = "".join(f"        {'if' if k == 0 else 'elif'} k == {k}:\n            def g():\n"
                    f"                return {k + 1}\n" for k in range(13))
    body = "        k = g()\n" + chain + "        f: pl.DT_INT32 = (k >= 12) * 4096\n"
    errors = error_messages(transpile(_kernel("    def g():\n        return 0\n\n", body), path="k.py", preload=2))
    assert errors and "`g` carries a value from one iteration to the next" in errors[0], errors


def test_the_same_def_at_every_iteration_is_proven():
    body = "        def g():\n            return 0\n\n        f: pl.DT_INT32 = g()\n"
    assert error_messages(transpile(_kernel("", body), path="k.py", preload=2)) == []


def test_a_default_growing_at_the_end_of_a_long_chain_of_functions_is_refused():
    chain = "    def g10(box=[0]):\n        box.append(1)\n        return len(box)\n\n" + "".join(
        f"    def g{k}(x=g{k + 1}):\n        return x()\n\n" for k in range(9, -1, -1))
    before = chain + "    fn = g0\n    del " + ", ".join(f"g{k}" for k in range(11)) + "\n"
    errors = error_messages(transpile(_kernel(before, "        f: pl.DT_INT32 = (fn() >= 13) * 4096\n"),
                                      path="k.py", preload=2))
    assert errors and "nested more than 4 deep" in errors[0], errors
