"""A call that Python's binding of arguments to parameters refuses is refused (probe h91).

A stage called with an unknown keyword (`stage4(..., bogus=1)`) or a value given twice was
written as proven, and the serial kernel itself raised TypeError at its first call; a stage
given too few arguments was reported as a buffer used by one stage only (PTO033), too many as
the check failing to follow the kernel. Stage calls are bound as Python binds them before any
other rule judges them (PTO083), and so is every call of the file's functions the check runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_transpile import transpile

ROOT = Path(__file__).resolve().parents[2]
DEMO = (ROOT / "examples" / "seed_demo.py").read_text(encoding="utf-8")
CALL = "            stage4(ki, sub_id, out, out_vec_db)\n"
ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")


@pytest.mark.parametrize(("call", "words"), [
    ("stage4(ki, sub_id, out)", "`stage4()` is missing a required argument: `out_vec_db`"),
    ("stage4(ki, sub_id, out, out_vec_db, 1)", "`stage4()` takes 4 positional arguments but 5 were given"),
    ("stage4(ki, sub_id, out, out_vec_db=out_vec_db, bogus=1)", "got an unexpected keyword argument `bogus`"),
    ("stage4(ki, sub_id, out, out_vec_db, out_vec_db=out_vec_db)", "got multiple values for argument `out_vec_db`"),
])
def test_a_stage_call_python_would_refuse_is_refused_first(call, words):
    assert CALL in DEMO
    result = transpile(DEMO.replace(CALL, f"            {call}\n"), path="k.py")
    found = [(d.code, d.message) for d in result.diagnostics]
    assert len(found) == 1 and found[0][0] == "PTO083" and words in found[0][1], found


def test_a_helper_call_python_would_refuse_is_refused():
    helper = "def halve(dst, src):\n    pl.muls(dst, src, 0.5)\n\n\n"
    text = ROWS.replace("    pl.muls(res, proj, 0.5)\n", "    halve(res, proj, factor=2)\n").replace(
        "\n@pl.pipeline.stage\ndef finish(", "\n" + helper + "@pl.pipeline.stage\ndef finish(", 1)
    errors = [d.message for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert len(errors) == 1 and "`halve()` got an unexpected keyword argument `factor`: Python raises TypeError" \
        in errors[0], errors
