"""Entries a renamed rotation was taken to choose among, reached another way, found by a hostile
probe (h66) after the held-slot fix of test_probe_h63.py. In each, a stage fills the rotating
entry of its task with 1.0 while another reads one fixed entry every task: wrong at the task
where the two meet, which the check's shortened runs (up to 2Z + L tasks, L without the
rotation) never reach. Each fixed entry is reached

* through a second tile group laid over the same memory whose cursor never moves (`bias_view
  .current()`, before the loop or in the stage itself),
* through a slice of a certified tuple of tiles (`bias_t[15:][0]`), or
* through a slot picked in the loop's first iteration and kept (`if i == core_id: bias0 =
  bias_db.current()`).

The kernels are the tiled-scale example with a vector stage `prep` moving a 16-slot group (or
picking a tuple of 16 tiles) every task, wrong from 16 row blocks a core."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, spread
from pto_transpile import transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
GROUP = ("        bias_db = pl.make_tile_group(\n"
         "            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "            addrs=0x10000,\n"
         "            mutex_ids=[12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27],\n        )\n")
VIEW = GROUP.replace("bias_db", "bias_view")
PREP = ("@pl.pipeline.stage\ndef prep(bias_db):\n    b = bias_db.next()\n    pl.full(b, 1.0)\n\n\n"
        "@pl.pipeline.stage\ndef finish(i, sub_id, scale, out, proj_vec_db, res_db, bias0):")


def _kernel(setup: str, prep: str = PREP, bias: str = "bias0", first: str = "") -> str:
    """The example with `prep` moving a rotation each task, `setup` in the vector section before the
    loop, `first` at the top of the loop body, and `finish` adding `bias` (a stage argument)."""
    return edited(TILED, [
        ("@pl.pipeline.stage\ndef finish(i, sub_id, scale, out, proj_vec_db, res_db):", prep),
        ("    epilogue(res, proj, scale)\n", "    epilogue(res, proj, scale)\n    pl.add(res, res, bias0)\n"),
        ("            mutex_ids=[10, 11],\n        )\n", "            mutex_ids=[10, 11],\n        )\n" + setup),
        (LOOP, LOOP + first + "        with pl.section_vector():\n            prep(bias_db)\n"),
        ("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)",
         f"            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db, {bias})"),
    ])


#: bias0 is a slot of a second group over bias_db's memory, whose cursor never moves
VIEWED = _kernel(GROUP + VIEW + "        bias0 = bias_view.current()\n        pl.full(bias0, 0.0)\n")
#: the same view picked by the stage itself, every task
VIEWED_IN_STAGE = _kernel(GROUP + VIEW + "        zero = bias_view.current()\n        pl.full(zero, 0.0)\n",
                          PREP.replace("res_db, bias0):", "res_db, bias_view):\n    bias0 = bias_view.current()"),
                          bias="bias_view")
#: bias0 picked in the first iteration of each core and kept for the others
FIRST = _kernel(GROUP, first="        if i == core_id:\n            with pl.section_vector():\n"
                             "                bias0 = bias_db.current()\n                pl.full(bias0, 0.0)\n")
#: a tuple of 16 tiles picked by a counter of the block's tasks (`t % 16`), and its last entry read
#: through a slice
TILES = "".join(f"        bias_{k} = pl.make_tile(bias_type, addr=0x10000 + {k} * 2048, size=2048)\n"
                for k in range(16))
SLICED = _kernel(
    "        bias_type = pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n"
    + TILES + "        bias_t = (" + ", ".join(f"bias_{k}" for k in range(16)) + ")\n"
    "        pl.full(bias_t[15:][0], 0.0)\n",
    "@pl.pipeline.stage\ndef prep(t, bias_t):\n    b = bias_t[t % 16]\n    pl.full(b, 1.0)\n\n\n"
    "@pl.pipeline.stage\ndef finish(i, sub_id, scale, out, proj_vec_db, res_db, bias_t):\n"
    "    bias0 = bias_t[15:][0]", bias="bias_t")
SLICED = edited(SLICED, [("            prep(bias_db)\n", "            prep(t, bias_t)\n"),
                         (LOOP, "    t = 0\n" + LOOP),
                         ("proj_vec_db, res_db, bias_t)\n", "proj_vec_db, res_db, bias_t)\n        t = t + 1\n")])


@pytest.mark.parametrize("text", [VIEWED, VIEWED_IN_STAGE, FIRST, SLICED],
                         ids=["view before the loop", "view in the stage", "first iteration", "tuple slice"])
@pytest.mark.parametrize("preload", spread([1, 2], 1))  # preload 2 in the campaign tier
def test_a_fixed_entry_reached_another_way_keeps_the_rotation_in_the_period(text, preload):
    errors = error_messages(transpile(text, path="k.py", preload=preload))
    assert len(errors) == 1 and "(task 1" in errors[0] and "reads `bias" in errors[0], errors


@pytest.mark.emulator
def test_the_emulator_shows_them_wrong_at_16_tiles_a_core_and_right_at_15():
    for text in (VIEWED, FIRST, SLICED):
        code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code

        def verdict(rows: int, text: str = text, code: str = code) -> str:
            report = verify(text, code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                            scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=1, seed=0)
            return report.rows[-1].verdict

        assert verdict(15 * 32) == "ok" and verdict(16 * 32) != "ok"
