"""A GM tensor of three dimensions walked by a loop of run-time trip count (a batch of outputs,
`out[i, r, c]`): the check places its windows in a 2-D view, row `i * d1 + r`, and that row
moved with the loop variable as `i` does. It was computed as a plain number, which forgot the
loop variable: such a store was refused as "written at a place that does not depend on the
block" (a hostile probe, h65). The kernels are edits of the tile-grid example: each row of the
grid is one slab of a `[m_tiles, BLOCK, cols]` output."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

GRID = (Path(__file__).parents[2] / "examples" / "tiled_grid.py").read_text()
OUT = ("    out: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],\n",
       "    out: pl.Tensor[[pl.DYNAMIC, BLOCK, pl.DYNAMIC], pl.DT_FP32],\n")
STORE = "    pl.store(out, res, [i * BLOCK + sub_id * HALF, j * BLOCK])"
SLABS = edited(GRID, [OUT, (STORE, "    pl.store(out, res, [i, sub_id * HALF, j * BLOCK])")])
#: the second half one row further down: its last row runs on into the next slab's first row
OVERRUN = edited(GRID, [OUT, (STORE, "    pl.store(out, res, [i, sub_id * (HALF + 1), j * BLOCK])")])


@pytest.mark.parametrize("preload", [1, 2])
def test_a_store_into_slabs_by_the_loop_variable_is_proven(preload):
    assert error_messages(transpile(SLABS, path="k.py", preload=preload)) == []


def test_a_store_reaching_into_the_next_slab_is_refused():
    errors = error_messages(transpile(OVERRUN, path="k.py", preload=1))
    assert errors and "`out` is written" in errors[0], errors


@pytest.mark.emulator
def test_it_runs_as_the_serial_kernel():
    code = transpile(SLABS, path="k.py", preload=1).code
    for m, n, blocks in ((3, 2, 1), (2, 3, 2), (4, 1, 3)):
        shapes = {"a": (m * 32, 32), "w": (32, n * 32), "out": (m, 32, n * 32)}
        report = verify(SLABS, code, "tiled_grid_kernel", shapes=shapes, scalars={"scale": 0.5}, block_dim=blocks,
                        seed=0)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], (m, n, blocks)
