"""Simulated speedup of the seed demo: serial vs generated preload 0 and 2, with Gantt charts.

Run from the repository root: `python3 benchmarks/sim_speedup.py [N_ITER]`. The pipelined
kernels are generated from examples/seed_demo.py by pto-transpile in the same run, so the
numbers always describe the current transpiler. Cycle numbers come from sim_runtime's cost
model (sim_runtime/costs.py), a model, not a measurement.
"""

import argparse
import sys
from pathlib import Path

from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pto_transpile import transpile  # noqa: E402
from sim_runtime import verify  # noqa: E402
from sim_runtime.bound import loop_bound  # noqa: E402
from sim_runtime.gantt import render_gantt  # noqa: E402

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
    runs = [(row.version, row.run) for row in report.rows if row.run is not None]
    for label, run in runs[1:]:
        bound = loop_bound(run.timeline, list(run.cores))
        if bound is not None:
            console.print(f"{label}: {bound.summary()}", markup=False, highlight=False)
    render_gantt([run.gantt(label) for label, run in runs], console, title=f"demo, {n_iter} iterations")
    return 0 if report.ok else 1


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n_iter", nargs="?", type=int, default=4, help="iterations of the demo's loop (default 4)")
    args = parser.parse_args(argv)
    if args.n_iter < 1:
        parser.error("n_iter must be at least 1")
    return args


if __name__ == "__main__":
    sys.exit(main(parse_args(sys.argv[1:]).n_iter))
