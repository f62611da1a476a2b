"""A kernel whose blocks all add into the same rows of GM with atomic stores, through the CLI:
the check accepts it, and the emulator finds no race and the same bits in the serial and the
pipelined kernel at any block count, though the blocks' additions reach GM in other orders.

The kernel is examples/tiled_scale.py with every block adding `scale * (A_i @ W)` of its row
blocks i into the same 32 rows of `out` (each AIV its half): out = scale * sum_i A_i @ W.
Block 1 loads W three more times first, so its additions reach GM at other times relative to
block 0's in the serial and in the pipelined kernel."""

from __future__ import annotations

import re

import numpy as np
import pytest
from click.testing import CliRunner

from helpers import ROOT, edited
from pto_transpile.cli import main
from sim_runtime import run_kernel
from sim_runtime.verify import make_inputs

pytestmark = pytest.mark.emulator

TEXT = edited((ROOT / "examples" / "tiled_scale.py").read_text(), [
    ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
     "    pl.store(out, res, [sub_id * HALF, 0], atomic=pl.AtomicType.AtomicAdd)\n"),
    ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n", "    out: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"),
    ("    core_id = pl.get_block_idx() // pl.get_subblock_num()\n",
     "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
     "    with pl.section_cube():\n"
     "        if core_id == 1:\n"
     "            pl.load(w_slot, w, [0, 0])\n"
     "            pl.load(w_slot, w, [0, 0])\n"
     "            pl.load(w_slot, w, [0, 0])\n"),
])
ROWS = 320  # ten row blocks: 5 and 5 on two blocks, 4, 3 and 3 on three
ARGS = {"scale": 0.5, "ApplyRelu": 0}


@pytest.mark.parametrize("block_dim", [1, 2, 3])
def test_atomic_adds_from_every_block_verify_ok(tmp_path, block_dim):
    kernel = tmp_path / "atomic_sum.py"
    kernel.write_text(TEXT)
    out = tmp_path / "atomic_sum_p1.py"
    args = [a for k, v in ARGS.items() for a in ("--arg", f"{k}={v}")]
    r = CliRunner().invoke(main, [str(kernel), "--preload", "1", "--simulate", "--block-dim", str(block_dim),
                                  "--shape", f"a={ROWS}x32", *args, "-o", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    verdicts = dict(re.findall(r"^  (serial|pipelined) .* (\S+)$", r.output, re.MULTILINE))
    assert verdicts == {"serial": "ok", "pipelined": "ok"}, r.output
    assert out.exists()


def test_the_serial_kernel_leaves_the_sum_of_every_row_block():
    inputs = make_inputs(TEXT, "tiled_scale_kernel", path="atomic_sum.py", seed=0, shapes={"a": (ROWS, 32)},
                         scalars=ARGS)
    a, w = inputs["a"], inputs["w"]
    inputs["out"] = np.zeros_like(inputs["out"])  # the additions start from zeros
    res = run_kernel("atomic_sum.py", "tiled_scale_kernel", inputs, block_dim=3, mode="sequential", source=TEXT)
    want = 0.5 * sum(a[i:i + 32].astype(np.float64) @ w for i in range(0, ROWS, 32))
    assert np.allclose(res.outputs["out"], want, rtol=1e-4, atol=1e-3)
