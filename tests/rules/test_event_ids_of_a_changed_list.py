"""PTO026 for ids bound to a module list the file changes in place (probe h254): the refusal said
the name "is not bound to a list or tuple of integers outside the kernel" and asked to bind it at
module level, which the file did; it names the change, and the kernel without it is accepted."""

from __future__ import annotations

import pytest

from helpers import ROOT, edited, error_messages
from pto_transpile import transpile

DEMO = (ROOT / "examples" / "seed_demo.py").read_text(encoding="utf-8")
BOUND = edited(DEMO, [("N_ITER = 4\n", "N_ITER = 4\nMM1_FWD = [0, 1]\n"),
                      ("        fwd_ids=[0, 1],\n", "        fwd_ids=MM1_FWD,\n")])
LOOP = "    # The pipeline loop: the 4 stages, cube and vector alternating\n"


@pytest.mark.parametrize("change, where", [("    MM1_FWD.reverse()\n", "kernel"), ("MM1_FWD[0] = 8\n", "module")])
def test_the_change_is_named(change, where):
    text = edited(BOUND, [(LOOP, change + LOOP)]) if where == "kernel" else BOUND + "\n" + change
    (found,) = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    line = text.splitlines().index(change.rstrip("\n")) + 1
    assert found.code == "PTO026", found
    assert f"a list that `{change.strip()}` at line {line} changes" in found.message, found.message
    assert found.hint.startswith("Bind `MM1_FWD` to the ids the buffer should use and remove the change")
    assert [r.line for r in found.related] == [line]


def test_the_list_left_as_bound_is_accepted():
    assert error_messages(transpile(BOUND, path="k.py")) == []
