"""A barrier between or in the stages of a pipeline loop gets a help that leads out of it (probe
h77). PTO013's help said to move a `sync_all` between two stages into a stage; there the check
refused it naming the generated kernel's `_pl_ctx_neg1._pl_is_valid` as a test that "may go
another way on another block", with the help about trip counts."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import codes, transpile

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
BETWEEN = "            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)\n"
AIV = "pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)"


def _errors(text: str) -> list:
    return [d for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_a_barrier_between_stages_is_told_to_leave_the_loop_or_use_a_tile_group():
    [d] = _errors(edited(BASE, [(BETWEEN, BETWEEN + "        pl.system.sync_all()\n")]))
    assert d.code == codes.STATEMENT_BETWEEN_STAGES, d
    assert d.hint.startswith("A barrier between two stages orders two iterations' work"), d.hint
    assert "through a tile group with `fwd_ids`/`bwd_ids`" in d.hint


def test_a_barrier_in_a_stage_names_the_stage_s_test_in_words_and_leads_out_of_the_loop():
    text = edited(BASE, [("    pl.muls(res, proj, 0.5)\n", f"    pl.muls(res, proj, 0.5)\n    {AIV}\n")])
    [d] = _errors(text)
    assert d.code == codes.PIPELINE_NOT_PROVEN, d
    assert f"`{AIV}` is in a stage, which the pipelined kernel runs only where its task is in range" in d.message
    assert d.hint.startswith("Put the barrier before or after the pipeline loop"), d.hint
    # the help applied: the barrier after the loop, where every vector core reaches it once
    after = edited(BASE, [("            finish(i, sub_id, out, proj_vec_db, res_db)",
                           f"            finish(i, sub_id, out, proj_vec_db, res_db)\n    with pl.section_vector():\n"
                           f"        {AIV}")])
    assert _errors(after) == []
