"""`i, j = grid_pos(idx, 2)` with a plain function returning a tuple (`return idx // n, idx % n`):
each name was of an unknown kind, so PTO054 asked to annotate `i, j` (which Python cannot) and
the chain of hints never reached an accepted kernel (probe h206); `divmod` or two expressions were
accepted. Each name now takes the kind of its element of every `return`."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import DYNAMIC_ROWS_LOOP, edited, error_messages, kernel_text
from pto_transpile import codes, transpile
from sim_runtime import verify

ROWS = kernel_text(Path(__file__).parents[1] / "soundness" / "kernels" / "dynamic_rows.py")
LOOP = DYNAMIC_ROWS_LOOP
GRID = """    for idx in pl.range(0, n_tiles):
        i, j = grid_pos(idx, 2)
        with pl.section_cube():
            mm_stage(i * 2 + j, a, a_l1, left_db, right_db, acc_db, c_vec_db)
        with pl.section_vector():
            scale_store(i * 2 + j, sub_id, out, c_vec_db, y_db)"""
STAGE = "@pl.pipeline.stage\ndef mm_stage"


def _grid(returns: str, rows: str = "pl.DYNAMIC") -> str:
    helper = f"def grid_pos(idx, n):\n    {returns}\n\n\n"
    return edited(ROWS, [(LOOP, GRID), (STAGE, helper + STAGE)]).replace("pl.DYNAMIC", rows)


@pytest.mark.parametrize("returns", ["return idx // n, idx % n", "r = idx % n\n    return idx // n, r"])
def test_names_unpacked_from_a_helper_s_tuple_are_scalars_and_proven(returns):
    text = _grid(returns, rows="256")
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    report = verify(text, result.code, "kernel")
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows


def test_at_a_run_time_size_the_division_is_named_not_the_kind():
    found = [d for d in transpile(_grid("return idx // n, idx % n"), path="k.py").diagnostics if d.is_error]
    assert [d.code for d in found] == [codes.PIPELINE_NOT_PROVEN], found
    assert "`idx // n` divides the loop variable by a number" in found[0].message, found[0].message


def test_a_tuple_of_another_length_is_still_unknown():
    """A `return` of three values for two names: PTO054, as before."""
    found = [d.code for d in transpile(_grid("return (idx // n, idx % n, 0)", rows="256"), path="k.py").diagnostics
             if d.is_error]
    assert codes.ARGUMENT_KIND_UNKNOWN in found, found
