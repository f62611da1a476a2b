"""Probe h82's hole: a residue of an outer loop's trip count (`m % 16`) taken only in a test's
piece (`d == 7`), accepted, whose pipelined run raced on the emulator at `m = 15` while the
serial run was ok. The discovery run, at the first sample of `d`, took no residue of `m`, so the
counts run were chosen for a period without 16; the runs at `d = 7` took it, and compared it only
for roots whose period the check chose (an outer loop around one inner loop), not for this outer
loop around two. Every run now holds every residue of a trip count it takes to the period its
counts were chosen for (`Interpreter.run`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
PICKED = (KERNELS / "workspace_pick.py").read_text(encoding="utf-8")


def _outer(test: str) -> str:
    """workspace_pick.py inside `for r in pl.range(0, m)` (`m` from a second workspace's rows),
    around two inner loops, the vector stage storing to `ws` where `test` holds."""
    return edited(PICKED, [
        ("def finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha):",
         "def finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha, m):"),
        ("    pl.store({0: ws, 1: ws2}[i % 2], res, [sub_id * HALF, 0])  # the pick the tests replace\n",
         f"    pl.store(ws if {test} else ws2, res, [sub_id * HALF, 0])\n"),
        ("    ws2: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],", "    ws2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],"),
        ("""    for i in pl.range(0, n_blocks):
        with pl.section_cube():
            project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha)
""", """    m = ws2.shape[0] // BLOCK
    for r in pl.range(0, m):
        for _k in pl.range(0, n_blocks):
            pass
        for i in pl.range(0, n_blocks):
            with pl.section_cube():
                project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)
            with pl.section_vector():
                finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha, m)
""")])


PIECE = "d == 7 and m % 16 == 15"


def test_a_residue_of_an_outer_trip_count_taken_in_a_piece_only_is_refused():
    [error] = error_messages(transpile(_outer(PIECE), path="k.py", preload=1))
    assert "a residue `% 16` of `ws2.shape[0] // 32`, a trip count, is taken at some values" in error, error


def test_the_same_residue_taken_in_every_run_names_the_race():
    [error] = error_messages(transpile(_outer("m % 16 == 15"), path="k.py", preload=1))
    assert "writes `ws[0:16, 0:32]`" in error and "`ws2.shape[0] // 32` = 15" in error, error


@pytest.mark.emulator
def test_the_emulator_shows_the_piece_races_at_its_residue():
    text = _outer(PIECE)
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    for rows, verdict in ((448, "ok"), (480, "race")):  # m = 14, m = 15
        result = verify(text, code, "kern", path="k.py", shapes={"a": (128, 32), "out": (128, 32), "ws2": (rows, 32)},
                        scalars={"d": 7, "alpha": 0.5}).rows
        assert result[0].verdict == "ok" and result[1].verdict == verdict, [(r.verdict, r.message) for r in result]
