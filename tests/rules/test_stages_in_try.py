"""Stage calls in a `try` inside the pipeline loop: the transform pipelines the section blocks a
loop's body holds itself, so the calls are outside every pipeline loop. PTO004 said no loop
called a stage and PTO055 that each call was outside a pipeline loop, naming nothing the author
wrote (probe h207); both name the `try` now, and dropping it is accepted."""

from __future__ import annotations

from pathlib import Path

from helpers import DYNAMIC_ROWS_LOOP, edited
from pto_transpile import codes, transpile

ROWS = (Path(__file__).parents[1] / "soundness" / "kernels" / "dynamic_rows.py").read_text(encoding="utf-8")
LOOP = DYNAMIC_ROWS_LOOP
IN_TRY = """    for ki in pl.range(0, n_tiles):
        try:
            with pl.section_cube():
                mm_stage(ki, a, a_l1, left_db, right_db, acc_db, c_vec_db)
            with pl.section_vector():
                scale_store(ki, sub_id, out, c_vec_db, y_db)
        finally:
            pass"""


def _line(text: str, code: str) -> int:
    return text[:text.index(code)].count("\n") + 1


def test_stage_calls_in_a_try_name_the_try():
    text = edited(ROWS, [(LOOP, IN_TRY)])
    loop, block = _line(text, "    for ki in"), _line(text, "        try:")
    found = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert [d.code for d in found] == [codes.NO_PIPELINE_LOOP, codes.STAGE_CALL_OUTSIDE_LOOP,
                                       codes.STAGE_CALL_OUTSIDE_LOOP], found
    assert found[0].message.endswith(f"the loop at line {loop} calls its stages inside the `try` at line {block}, "
                                     "where the transform does not look"), found[0].message
    assert f"drop the `try` at line {block}" in found[0].hint, found[0].hint
    assert found[1].message == f"stage `mm_stage` is called inside the `try` at line {block}, not a pipeline loop's " \
                               "own body"
    assert f"loop at line {loop}" in found[1].hint and "drop the `try`" in found[1].hint, found[1].hint


def test_a_stage_called_after_the_loop_is_still_said_outside_it():
    after = LOOP + "\n    with pl.section_vector():\n        scale_store(0, sub_id, out, c_vec_db, y_db)"
    found = [d for d in transpile(edited(ROWS, [(LOOP, after)]), path="k.py").diagnostics if d.is_error]
    assert [d.message for d in found if d.code == codes.STAGE_CALL_OUTSIDE_LOOP] == [
        "stage `scale_store` is called outside a pipeline loop"], found


def test_the_hint_s_fix_is_accepted():
    assert [d for d in transpile(ROWS, path="k.py").diagnostics if d.is_error] == []
