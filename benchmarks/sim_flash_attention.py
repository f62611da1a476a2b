"""How long does emulating FlashAttention take, on one core?

Runs examples/flash_attention_dn.py on sim_runtime as issue 9 sizes it (q [256, 128], k and
v [512, 128], fp16): the serial kernel (sequential mode) and the transpiler's pipelined
kernel at preload 2 (concurrent mode), pinned to one CPU. Prints the wall time of each and
their sum (the budget is 60 s), and, as a machine-independent figure, the ratio to the
seed demo's serial emulation measured in the same run. Run:

    python benchmarks/sim_flash_attention.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # a checkout runs it without installing the package

import numpy as np  # noqa: E402

from pto_transpile import transpile  # noqa: E402
from sim_runtime import run_kernel  # noqa: E402
from tests.helpers import fixed_flash_attention  # noqa: E402

FA = ROOT / "examples" / "flash_attention_dn.py"
DEMO = ROOT / "examples" / "seed_demo.py"
BUDGET_S = 60.0


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    rng = np.random.default_rng(0)
    inputs = {"q": rng.random((256, 128)).astype(np.float16),
              "k": rng.random((512, 128)).astype(np.float16),
              "v": rng.random((512, 128)).astype(np.float16),
              "o": np.zeros((256, 128), np.float16)}  # its rows are `pl.DYNAMIC`: the output gives them
    code = transpile(fixed_flash_attention(), preload=2, path=FA.name).code  # its rows fixed: a few runs of the proof
    demo_s, _ = timed(lambda: run_kernel(DEMO, "pipeline_demo_kernel", {}, mode="sequential"))
    serial_s, serial = timed(lambda: run_kernel(FA, "flash_attention_dn", inputs, mode="sequential"))
    piped_s, piped = timed(lambda: run_kernel("flash_attention_dn_p2.py", "flash_attention_dn", inputs, source=code))
    assert np.array_equal(serial.outputs["o"], piped.outputs["o"]), "pipelined output differs from serial"
    total = serial_s + piped_s
    print(f"FlashAttention q[256,128] k,v[512,128] fp16 on one core "
          f"(cpu {sorted(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'})")
    print(f"  serial      {serial_s:6.2f} s  ({serial.cycles} simulated cycles)")
    print(f"  pipelined   {piped_s:6.2f} s  ({piped.cycles} simulated cycles, preload 2)")
    print(f"  total       {total:6.2f} s  (budget {BUDGET_S:.0f} s: {'ok' if total <= BUDGET_S else 'OVER'})")
    print(f"  baseline: seed demo serial {demo_s:5.2f} s; "
          f"FlashAttention serial + pipelined = {total / demo_s:5.1f}x it")


if __name__ == "__main__":
    main()
