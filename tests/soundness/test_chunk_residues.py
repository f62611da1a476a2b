"""A residue of a chunk loop's variable (`i % 2` in `pl.range(start, stop)` with `start = core_id *
per`) differs between blocks: refused, with a help naming the form that is proven, the residue of
the iterations counted from the start (probe h104: the help said "take residues of the loop
variable itself (`t % 2`)", which `i` already was)."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

SCALE = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
CHUNKS = edited(SCALE, [
    ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):\n",
     "def finish(i, start, sub_id, scale, out, proj_vec_db, res_db):\n"),
    ("    epilogue(res, proj, scale)\n",
     "    epilogue(res, proj, scale)\n    if i % 2 == 0:\n        pl.muls(res, res, 2.0)\n"),
    ("    for i in pl.range(core_id, n_blocks, num_cores):\n",
     "    per = (n_blocks + num_cores - 1) // num_cores\n    start = core_id * per\n"
     "    stop = min(start + per, n_blocks)\n    for i in pl.range(start, stop):\n"),
    ("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
     "            finish(i, start, sub_id, tiling.scale, out, proj_vec_db, res_db)\n")])


def test_a_residue_of_a_chunk_loop_s_variable_names_the_form_that_is_proven():
    (message,) = error_messages(transpile(CHUNKS, path="k.py"))
    assert "`i % 2` takes a residue of the loop variable moved by the block index or count" in message, message
    assert "take residues of the iterations counted from the loop's start (`(i - start) % 2` in " \
           "`pl.range(start, stop)`" in message, message
    fixed = edited(CHUNKS, [("    if i % 2 == 0:\n", "    if (i - start) % 2 == 0:\n")])
    result = transpile(fixed, path="k.py")
    assert error_messages(result) == []
    report = verify(fixed, result.code, "tiled_scale_kernel", shapes={"a": (160, 32), "out": (160, 32)},
                    scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=2)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows
