"""Mutation tests on the pipelined FlashAttention: deleting any one inserted set or wait is caught.

The kernel is the transpiler's output at preload 2 (ring depth 4) with the sequence lengths
cut to 256 x 256: two query tiles of two KV tiles, four tasks, so every ring slot, both
query slots and every stage in and after the loop still run, at a quarter of the cost.
"""

import ast
from pathlib import Path

import numpy as np
import pytest

from helpers import fixed_flash_attention, resized, spread
from pto_transpile import transpile
from sim_runtime import DeadlockError, RaceError, SyncBalanceError, run_kernel

pytestmark = pytest.mark.emulator

FA = Path(__file__).resolve().parent.parent.parent / "examples" / "flash_attention_dn.py"
NAME = "flash_attention_dn"


def _small_pipelined() -> str:
    code = transpile(fixed_flash_attention(), preload=2, path=FA.name).code
    return resized(code, 256, 256)


CODE = _small_pipelined()
LINES = CODE.splitlines(keepends=True)
SYNCS = sorted((n.lineno, n.end_lineno) for n in ast.walk(ast.parse(CODE))
               if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
               and getattr(n.value.func, "attr", "") in ("set_cross_core", "wait_cross_core"))
RNG = np.random.default_rng(1)
INPUTS = {"q": RNG.random((256, 128)).astype(np.float16),
          "k": RNG.random((256, 128)).astype(np.float16),
          "v": RNG.random((256, 128)).astype(np.float16)}


def _run(code):
    return run_kernel("fa_p2_mutant.py", NAME, INPUTS, source=code)


def _without(first: int, last: int) -> str:
    indent = LINES[first - 1][:len(LINES[first - 1]) - len(LINES[first - 1].lstrip())]
    return "".join(LINES[:first - 1] + [indent + "pass\n"] + LINES[last:])


def test_the_unmutated_kernel_runs_and_matches_its_serial_version():
    serial = run_kernel("fa_serial.py", NAME, INPUTS, source=resized(fixed_flash_attention(), 256, 256),
                        mode="sequential")
    assert np.array_equal(_run(CODE).outputs["o"], serial.outputs["o"])
    assert len(SYNCS) >= 20  # prefire, every stage's waits and sets, drain


@pytest.mark.parametrize("span", spread(SYNCS, 6, ids=lambda s: f"line{s[0]}"))
def test_deleting_any_single_sync_is_reported(span):
    with pytest.raises((DeadlockError, SyncBalanceError, RaceError)):
        _run(_without(*span))
