"""Simulated speedup of the seed demo: serial vs generated preload 0 and 2, with Gantt charts.

Run from the repository root: `python3 benchmarks/sim_speedup.py [N_ITER]`. The pipelined
kernels are generated from examples/seed_demo.py by pto-transpile in the same run, so the
numbers always describe the current transpiler. Cycle numbers come from sim_runtime's cost
model (sim_runtime/costs.py), a model, not a measurement.
"""

import sys
from pathlib import Path

from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pto_transpile import transpile  # noqa: E402
from sim_runtime import run_kernel, verify  # noqa: E402

DEMO = ROOT / "examples" / "seed_demo.py"
NAME = "pipeline_demo_kernel"
PRELOADS = (0, 2)


def kernels(n_iter: int) -> tuple[str, dict[int, str]]:
    """The demo with `n_iter` iterations, and its transpilation at each preload."""
    serial = DEMO.read_text(encoding="utf-8")
    if "N_ITER = 4\n" not in serial:
        raise SystemExit(f"{DEMO} no longer sets N_ITER = 4; update this benchmark")
    serial = serial.replace("N_ITER = 4\n", f"N_ITER = {n_iter}\n")
    generated = {}
    for preload in PRELOADS:
        result = transpile(serial, preload=preload, path=str(DEMO))
        if result.code is None:
            raise SystemExit(f"pto-transpile rejected the demo at preload {preload}: {result.diagnostics}")
        generated[preload] = result.code
    return serial, generated


def main(n_iter: int = 4) -> int:
    console = Console()
    serial, generated = kernels(n_iter)
    labels = {f"preload={p}": code for p, code in generated.items()}
    paths = {f"preload={p}": f"seed_demo_p{p}.py" for p in generated}  # reports name each version's own lines
    report = verify(serial, labels, NAME, path="seed_demo.py", generated_paths=paths)
    report.render(console)
    for label, code in labels.items():
        run_kernel(paths[label], NAME, {}, source=code).render_gantt(console, title=f"demo {label}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 4))
