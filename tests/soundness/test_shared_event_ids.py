"""A handshake of the kernel's own, before the pipeline loop, on an event id a tile group also
declares: the vector cores prepare `ws` and set id 2, the cube waits for id 2 and loads `ws`; id 2
is in `proj_vec_db`'s `bwd_ids`, so the set the pipelined kernel makes for the group before its
loop may meet the cube's wait first, and the load races the store. The refusal said "nothing
orders the two (no set/wait pair ...)" with the help for code after the loop (probe h138); it
names the shared id, the group and the fix now. With an id no group declares it is proven."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")


def _kernel(event_id: int) -> str:
    return edited(ROWS, [
        ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
         "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    ws: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"),
        ("        w_slot = w_l1.current()\n        pl.load(w_slot, w, [0, 0])\n", ""),
        ("    sub_id = pl.get_subblock_idx()\n",
         "    sub_id = pl.get_subblock_idx()\n"
         "    with pl.section_vector():\n"
         "        tmp_g = pl.make_tile_group(\n"
         "            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "            addrs=0x10000, mutex_ids=[12],\n"
         "        )\n"
         "        tmp = tmp_g.current()\n"
         "        pl.load(tmp, w, [sub_id * HALF, 0])\n"
         "        pl.muls(tmp, tmp, 0.5)\n"
         "        pl.store(ws, tmp, [sub_id * HALF, 0])\n"
         f"        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id={event_id})\n"
         "    with pl.section_cube():\n"
         f"        pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id={event_id})\n"
         "        w_slot = w_l1.current()\n"
         "        pl.load(w_slot, ws, [0, 0])\n"),
    ])


def test_the_refusal_names_the_event_id_the_pipeline_sets_too():
    result = transpile(_kernel(2), path="k.py", preload=1)
    errors = [d for d in result.diagnostics if d.is_error]
    # (and the cube's waits on id 2 on two pipes, its own on MTE2 and the pipeline's on FIX)
    races = [d for d in errors if "`pl.load` on MTE2 of AIC reads `ws" in d.message]
    assert len(races) == 1, [d.message for d in errors]
    assert "no set/wait pair" not in races[0].message
    assert "the kernel's own wait at line " in races[0].message
    assert "takes event id 2, which tile group `proj_vec_db` (`bwd_ids`) declares too" in races[0].message
    assert races[0].hint.startswith("Give the kernel's own `set_cross_core`/`wait_cross_core` event ids that no "
                                    "tile group declares")


@pytest.mark.parametrize("preload", [1, 2])
def test_a_free_event_id_is_proven_and_runs_as_the_serial_kernel(preload):
    text = _kernel(5)
    result = transpile(text, path="k.py", preload=preload)
    assert result.ok, [d.message for d in result.diagnostics]
    for rows in (32, 96):
        report = verify(text, result.code, "kern", path="k.py",
                        shapes={"a": (rows, 32), "out": (rows, 32), "w": (32, 32), "ws": (32, 32)})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
