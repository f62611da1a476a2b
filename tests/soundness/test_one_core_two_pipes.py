"""A stage that stores a tile to GM and loads the same rows back, on MTE3 and then MTE2 of one
core, with nothing between them: the pipes of one core run ahead of one another and auto_mutex
orders tiles, not GM, so the serial kernel races as well. Refused, but with the help for two
stages (hand data through tile groups, or keep both accesses in one stage), where the two
accesses are in one stage already (probe h138). The help names the core's own flag now, and
with it the kernel is proven and runs as the serial one."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile
from sim_runtime import verify

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
STORE = "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
FLAG = ("    pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)\n"
        "    pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)\n")


def _kernel(flag: str = "") -> str:
    """The stored rows loaded back into a tile of their own (into `res`, the store's source, the
    load would wait for the store's mutex, which orders the two)."""
    return edited(ROWS, [
        ("def finish(i, sub_id, out, proj_vec_db, res_db):",
         "def finish(i, sub_id, out, out2, proj_vec_db, res_db, back_t):"),
        (STORE, STORE + flag + "    back = back_t.current()\n    pl.load(back, out, [i * BLOCK + sub_id * HALF, 0])\n"
                "    pl.muls(back, back, 2.0)\n    pl.store(out2, back, [i * BLOCK + sub_id * HALF, 0])\n"),
        ("finish(i, sub_id, out, proj_vec_db, res_db)", "finish(i, sub_id, out, out2, proj_vec_db, res_db, back_t)"),
        ("            addrs=0x8000, mutex_ids=[10, 11],\n        )\n",
         "            addrs=0x8000, mutex_ids=[10, 11],\n        )\n        back_t = pl.make_tile_group(\n"
         "            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "            addrs=0x10000, mutex_ids=[12],\n        )\n"),
        ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
         "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    out2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"),
    ])


def test_the_help_names_the_core_s_own_flag():
    errors = [d for d in transpile(_kernel(), path="k.py", preload=1).diagnostics if d.is_error]
    assert len(errors) == 1 and "`pl.load` on MTE2 of AIV0 reads `out" in errors[0].message, errors
    assert errors[0].hint.startswith("Order the two ops of the core yourself, as the serial kernel needs too: "
                                     "`pl.system.sync_src("), errors[0].hint


@pytest.mark.parametrize("preload", [1, 2])
def test_with_the_flag_the_kernel_is_proven_and_runs_as_the_serial_one(preload):
    text = _kernel(FLAG)
    result = transpile(text, path="k.py", preload=preload)
    assert result.ok, [d.message for d in result.diagnostics]
    report = verify(text, result.code, "kern", path="k.py",
                    shapes={"a": (96, 32), "out": (96, 32), "out2": (96, 32), "w": (32, 32)})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
