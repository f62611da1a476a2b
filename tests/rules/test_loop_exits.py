"""PTO059 and the move of an outer loop's `else:` read a loop's exits with one walk
(`read.walk.loop_exits`). PTO059 missed a `break` on its test's line (`if i > 2: break`, a one-line
block lists its simple statements where statements go) and one in an inner loop's `else:`, which
leaves the pipeline loop; the soundness check refused the first with a message about the test."""

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile

KERNEL = (Path(__file__).parents[1] / "soundness" / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
CALL = "            finish(i, sub_id, out, proj_vec_db, res_db)\n"


def _codes(extra: str) -> list[str]:
    return [d.code for d in transpile(edited(KERNEL, [(CALL, CALL + extra)]), path="k.py", preload=1).diagnostics
            if d.is_error]


@pytest.mark.parametrize("extra", ["        if i > 2: break\n", "        if i > 2:\n            break\n",
                                   "        for k in range(2):\n            pass\n        else:\n            break\n"],
                         ids=["on the test's line", "on its own line", "in an inner loop's else"])
def test_a_break_that_leaves_the_pipeline_loop_is_pto059(extra):
    assert _codes(extra)[:1] == ["PTO059"]


def test_an_inner_loop_s_own_break_is_not():
    assert "PTO059" not in _codes("        for k in range(2):\n            if k > 0: break\n")
