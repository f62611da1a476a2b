"""Differential check over random chains: accepted kernels must run right when pipelined.

For each seed, tests/chaingen.py writes a random serial kernel; pto-transpile transpiles it
at the preload the generator picked. When it is accepted without warnings, the emulator runs
serial (sequential) and pipelined (concurrent) on the same inputs and must find them
bit-identical, with no deadlock, race or unbalanced flags. Prints a tally; exit 1 on any
failure (the failing kernel is written to fuzz_failures/).

    python scripts/fuzz_chains.py [first_seed] [count]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the repository root first: tests/ holds folders named like the packages (tests/pto_api,
# tests/sim_runtime) that would otherwise be imported as empty namespace packages
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from chaingen import generate  # noqa: E402
from pto_transpile import transpile  # noqa: E402
from sim_runtime import verify  # noqa: E402


def check(seed: int) -> tuple[str, str]:
    chain = generate(seed)
    result = transpile(chain.text, path=f"chain_{seed}.py")
    if not result.ok:
        return "rejected:" + ",".join(sorted({d.code for d in result.diagnostics if d.is_error})), ""
    if result.diagnostics:
        return "warned:" + ",".join(sorted({d.code for d in result.diagnostics})), ""
    report = verify(chain.text, result.code, chain.kernel, path=f"chain_{seed}.py", seed=seed)
    serial, piped = report.rows[0], report.rows[-1]
    if serial.verdict != "ok":
        return "serial-" + serial.verdict, serial.message
    return piped.verdict, piped.message + " | " + chain.desc


def main() -> int:
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    tally: Counter = Counter()
    failed = 0
    for seed in range(first, first + count):
        verdict, message = check(seed)
        tally[verdict] += 1
        if verdict not in ("ok",) and not verdict.startswith(("rejected", "warned")):
            failed += 1
            out = ROOT / "fuzz_failures"
            out.mkdir(exist_ok=True)
            (out / f"chain_{seed}.py").write_text(generate(seed).text)
            print(f"seed {seed}: {verdict}: {message[:300]}")
    print(dict(sorted(tally.items())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
