"""A stage access whose place is unknown because of what the kernel hands the stage, not of how
the stage writes its offsets: `finish(int(f), ...)` with `f = i * 1.0`, where `finish` stores at
`[i * BLOCK + sub_id * HALF, 0]`, the form the help asks for. The refusal quoted only those
offsets, so a user following its help changed nothing (probe h131); it names the argument now."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile

KERNEL = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
CALL = "            finish(i, sub_id, out, proj_vec_db, res_db)\n"
LOOP = "    for i in pl.range(0, n_blocks):\n"


@pytest.mark.parametrize("call", [
    "            finish(int(f), sub_id, out, proj_vec_db, res_db)\n",
    "            finish(sub_id=sub_id, i=int(f), out=out, proj_vec_db=proj_vec_db, res_db=res_db)\n",
], ids=["by position", "by name"])
def test_the_refusal_names_the_argument_the_check_does_not_compute(call):
    text = edited(KERNEL, [(LOOP, LOOP + "        f = i * 1.0\n"), (CALL, call)])
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert len(errors) == 1 and "(its offsets `[i * BLOCK + sub_id * HALF, 0]`" in errors[0], errors
    assert "the stage's `i` is `int(f)` where the kernel calls `finish`, a value the check does not compute" \
        in errors[0], errors


def test_the_loop_variable_itself_is_proven():
    assert transpile(KERNEL, path="k.py", preload=1).ok
