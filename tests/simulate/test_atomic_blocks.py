"""A kernel whose blocks all add into the same rows of GM with atomic stores, through the CLI:
the check accepts it, and the emulator finds no race and the same bits in the serial and the
pipelined kernel at any block count, though the blocks' additions reach GM in other orders."""

from __future__ import annotations

import re

import numpy as np
import pytest
from click.testing import CliRunner

from helpers import ROOT
from pto_transpile.cli import main
from sim_runtime import run_kernel

pytestmark = pytest.mark.emulator

KERNEL = ROOT / "tests" / "kernels" / "atomic_sum.py"
ROWS = 320  # ten row blocks: 5 and 5 on two blocks, 4, 3 and 3 on three


@pytest.mark.parametrize("block_dim", [1, 2, 3])
def test_atomic_adds_from_every_block_verify_ok(tmp_path, block_dim):
    out = tmp_path / "atomic_sum_p1.py"
    r = CliRunner().invoke(main, [str(KERNEL), "--preload", "1", "--simulate", "--block-dim", str(block_dim),
                                  "--shape", f"a={ROWS}x32", "-o", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    verdicts = dict(re.findall(r"^  (serial|pipelined) .* (\S+)$", r.output, re.MULTILINE))
    assert verdicts == {"serial": "ok", "pipelined": "ok"}, r.output
    assert out.exists()


def test_the_serial_kernel_leaves_the_sum_of_every_row_block():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((ROWS, 32)).astype(np.float32)
    w = rng.standard_normal((32, 32)).astype(np.float32)
    res = run_kernel(KERNEL, "atomic_sum_kernel", {"a": a, "w": w}, block_dim=3, mode="sequential")
    want = 0.5 * sum(a[i:i + 32].astype(np.float64) @ w for i in range(0, ROWS, 32))
    assert np.allclose(res.outputs["out"], want, rtol=1e-4, atol=1e-3)
