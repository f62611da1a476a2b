"""Simulated speedup of the seed demo: serial vs generated preload 0 and 2, with Gantt charts.

Run from the repository root: `python3 benchmarks/sim_speedup.py [N_ITER]`. Cycle numbers
come from sim_runtime's cost model (sim_runtime/costs.py), a model, not a measurement.
"""

import sys
from pathlib import Path

from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim_runtime import run_kernel, verify  # noqa: E402

KERNELS = ROOT / "tests" / "sim_kernels"
NAME = "pipeline_demo_kernel"


def main(n_iter: int = 4) -> None:
    console = Console()
    src = {v: (KERNELS / f"demo_{v}.py").read_text().replace("N_ITER = 4", f"N_ITER = {n_iter}")
           for v in ("serial", "p0", "p2")}
    verify(src["serial"], {"preload=0": src["p0"], "preload=2": src["p2"]}, NAME, path="seed_demo.py").render(console)
    for v in ("p0", "p2"):
        res = run_kernel("seed_demo.py", NAME, {}, source=src[v])
        res.render_gantt(console, title=f"demo {v}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4)
