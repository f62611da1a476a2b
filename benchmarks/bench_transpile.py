"""How much does a transpile cost compared to what libcst alone must spend?

Baseline: libcst parse + code generation of the same file (the floor for any libcst tool).
Prints the ratio ours/baseline for the demo, for a ~700-line kernel file (the demo plus
many unrelated helper functions, as real kernel files carry) and for that file with one
error (positions are resolved only for the statement a diagnostic points into). Run:

    python benchmarks/bench_transpile.py [REPEAT]   # best of REPEAT runs each (default 7)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import libcst as cst

from pto_transpile import transpile

ROOT = Path(__file__).resolve().parent.parent
DEMO = (ROOT / "examples" / "seed_demo.py").read_text()

HELPER = '''

def helper_{i}(x, y):
    """An unrelated helper the kernel file carries."""
    total = 0
    for k in range(x):
        if k % 3 == 0:
            total += k * y  # comment {i}
        else:
            total -= {i}
    return total
'''


def big_file(lines: int = 700) -> str:
    text, i = DEMO, 0
    while text.count("\n") < lines:
        text += HELPER.format(i=i)
        i += 1
    return text


def best(fn, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main(repeat: int = 7) -> None:
    big = big_file()
    with_error = big.replace("fwd_ids=[0, 1],", "fwd_ids=[0, 16],")  # one diagnostic: positions get resolved
    for name, text in (("seed demo", DEMO), ("~700-line file", big), ("same, 1 error", with_error)):
        base_min, base_med = best(lambda: cst.parse_module(text).code, repeat)
        ours_min, ours_med = best(lambda: transpile(text, preload=2), repeat)
        print(f"{name:16s} {text.count(chr(10)):4d} lines  baseline {base_min * 1e3:6.1f} ms  "
              f"transpile {ours_min * 1e3:6.1f} ms  ratio {ours_min / base_min:4.2f}x (median {ours_med / base_med:4.2f}x)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
