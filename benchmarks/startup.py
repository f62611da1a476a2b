"""What one `pto-transpile` call costs before it does anything: start-up, in whole processes.

An editor or a pre-commit hook starts the command once per file, so its start-up is paid
every time. Each command below is started RUNS times, in turn with `python -c pass` (the
interpreter's own start, measured in the same run as the yardstick), and timed from outside
(wall clock around the child; CPU from the operating system's accounting of it). Prints
the median seconds and the ratio to `python -c pass`, taken pair by pair so that the
machine's drift during the run cancels out. Run:

    python benchmarks/startup.py [RUNS]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "seed_demo.py"


def _tool() -> list[str]:
    """The installed console script next to this interpreter, else `python -m pto_transpile`."""
    script = Path(sys.executable).parent / "pto-transpile"
    if script.exists():
        return [str(script)]
    found = shutil.which("pto-transpile")
    return [found] if found else [sys.executable, "-m", "pto_transpile"]


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `cmd`, its output thrown away."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited with {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    tool = _tool()
    baseline = [sys.executable, "-c", "pass"]
    commands = {
        "pto-transpile --version": tool + ["--version"],
        "pto-transpile --help": tool + ["--help"],
        "pto-transpile --check (the demo)": tool + [str(DEMO), "--check"],
    }
    print(f"start-up, median of {runs} runs, each paired with `python -c pass` ({sys.executable})")
    print(f"{'command':<34} {'wall s':>8} {'cpu s':>8} {'wall / pass':>12} {'cpu / pass':>11}")
    timed(baseline)  # warm the file cache for both
    base_rows = []
    for name, cmd in commands.items():
        timed(cmd)
        pairs = [(timed(cmd), timed(baseline)) for _ in range(runs)]
        walls = [a[0] for a, _ in pairs]
        cpus = [a[1] for a, _ in pairs]
        base_rows += [b for _, b in pairs]
        wall_ratio = statistics.median(a[0] / b[0] for a, b in pairs)
        cpu_ratio = statistics.median(a[1] / max(b[1], 1e-3) for a, b in pairs)
        print(f"{name:<34} {statistics.median(walls):8.3f} {statistics.median(cpus):8.3f} "
              f"{wall_ratio:11.1f}x {cpu_ratio:10.1f}x")
    print(f"{'python -c pass':<34} {statistics.median(b[0] for b in base_rows):8.3f} "
          f"{statistics.median(b[1] for b in base_rows):8.3f} {'1.0x':>12} {'1.0x':>11}")


if __name__ == "__main__":
    main()
