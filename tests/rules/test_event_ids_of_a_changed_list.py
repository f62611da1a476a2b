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
    assert f"a list the check takes as changed, since `{change.strip()}` at line {line} changes a list of that " \
        "name" in found.message, found.message
    assert found.hint.startswith("Bind `MM1_FWD` to the ids the buffer should use and change no list of that name")


def test_a_local_of_the_same_name_is_named_and_the_help_says_to_rename_it():
    """Probe h255: a helper's own `MM1_FWD` changed counts (the file's names are read whatever the
    scope); the refusal named no change at all. It names the helper's line, and the help says to
    rename such a local; renamed, the kernel is accepted."""
    helper = "def helper():\n    MM1_FWD = [5, 6]\n    MM1_FWD.append(7)\n    return MM1_FWD\n\n\n"
    first_stage = BOUND.index("@pl.pipeline.stage")
    text = BOUND[:first_stage] + helper + BOUND[first_stage:]
    (found,) = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert "`MM1_FWD.append(7)` at line" in found.message and "rename it" in found.hint, (found.message, found.hint)
    assert error_messages(transpile(text.replace("    MM1_FWD = [5, 6]\n    MM1_FWD.append(7)\n    return MM1_FWD",
                                                 "    mine = [5, 6]\n    mine.append(7)\n    return mine"),
                                    path="k.py")) == []


def test_a_change_through_another_name_says_so():
    text = BOUND + "\nALIAS = MM1_FWD\nALIAS.reverse()\n"
    (found,) = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert "which the check cannot take as fixed when the kernel is compiled" in found.message, found.message
    assert "(`ALIAS`)" in found.message, found.message


def test_the_list_left_as_bound_is_accepted():
    assert error_messages(transpile(BOUND, path="k.py")) == []
