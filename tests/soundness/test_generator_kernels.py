"""A kernel written as a generator (`yield` in its body) or a coroutine (`async def`) runs none
of its body when called: there is nothing to pipeline or compare. It was accepted and transpiled,
and the emulator ran it as an empty kernel (probe h73); it is refused now. A `yield` in a
function the kernel defines inside itself does not make the kernel one."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
CALL = "            finish(i, sub_id, out, proj_vec_db, res_db)\n"
GENERATOR = edited(BASE, [(CALL, CALL + "        yield i\n")])
COROUTINE = edited(BASE, [("\ndef kern(\n", "\nasync def kern(\n")])
NESTED = edited(BASE, [("    n_blocks = a.shape[0] // BLOCK\n",
                        "    n_blocks = a.shape[0] // BLOCK\n\n    def rows(n):\n        yield n\n\n")])


@pytest.mark.parametrize("text", [GENERATOR, COROUTINE], ids=["yield", "async"])
def test_a_kernel_a_call_runs_none_of_is_refused(text):
    [d] = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.PIPELINE_NOT_PROVEN and "kernel `kern` is a generator or coroutine" in d.message
    assert d.hint.startswith("Write the kernel as a plain function")


def test_a_generator_the_kernel_defines_leaves_it_a_kernel():
    assert [d.message for d in transpile(NESTED, path="k.py").diagnostics if d.is_error] == []
