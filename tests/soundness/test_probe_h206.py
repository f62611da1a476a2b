"""Probe h206: FlashAttention with its count of query tiles kept in a struct (`cnt = pl.struct(q=0)`,
`cnt.q = cnt.q + 1` after the pipeline loop) was refused at the pipeline loop: "field `cnt.q`
carries a value computed from a loop variable or counter from one iteration to the next". The
field moves with the outer loop alone; the pipeline loop only reads it, the same number at each of
its iterations' starts, and is judged as any number kept across them is. A field the pipeline loop
itself changes is still refused."""

from __future__ import annotations

import pytest

from helpers import ROOT, edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

FA = (ROOT / "examples" / "flash_attention_dn.py").read_text(encoding="utf-8")
IN_STRUCT = [("    q_count = 0\n", "    cnt = pl.struct(q=0)\n"),
             ("        compute_p(ki, tick, q_count,", "        compute_p(ki, tick, cnt.q,"),
             ("        compute_gu(ki, kv_tiles, tick, q_count,", "        compute_gu(ki, kv_tiles, tick, cnt.q,"),
             ("        q_count = q_count + 1\n", "        cnt.q = cnt.q + 1\n")]
SHAPES = {"q": (384, 128), "k": (512, 128), "v": (512, 128), "o": (384, 128)}


@pytest.mark.campaign  # (slow: the default tier stays within five minutes on two cores)
@pytest.mark.parametrize("preload", [1, 2])
def test_an_outer_counter_in_a_struct_is_read_by_the_pipeline_loop(preload):
    text = edited(FA, IN_STRUCT)
    result = transpile(text, path="fa.py", preload=preload)
    assert error_messages(result) == []
    report = verify(text, result.code, "flash_attention_dn", shapes=SHAPES, block_dim=2)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_field_the_pipeline_loop_sets_from_the_outer_loop_is_still_carried():
    """`cnt.q = qi` at the end of each iteration: the first iteration's start sees what the last
    outer iteration left, the others this one's `qi`."""
    text = edited(FA, IN_STRUCT + [("            tick = tick + 1\n",
                                    "            tick = tick + 1\n            cnt.q = qi\n")])
    errors = error_messages(transpile(text, path="fa.py", preload=1))
    assert errors and "field `cnt.q` carries a value from one iteration to the next" in errors[0], errors
