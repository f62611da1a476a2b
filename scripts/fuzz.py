"""Mutation fuzzer: every kernel pto-transpile accepts must pipeline to what the serial kernel computes.

Mutates the example and golden kernels (examples/*.py, golden/*/input.py) with one-place
edits, transpiles each mutant at every preload of --preloads, and runs every accepted one
on the emulator against its serial version. Any mismatch, race, deadlock or unbalanced
flag is a soundness failure. A mutant the soundness check refuses with a proof (PTO061 race,
deadlock or unbalanced flags; PTO068 in hand-written syncs) is run on the emulator too, and
a run that contradicts the proof is a disagreement failure (fuzzing/oracle.py defines the
agreement). An exception escaping transpile(), PTO099, an emulator crash or a hang is
recorded too. Each failure is shrunk to a small reproducer in --out.
Exit status 1 when anything failed, 2 when the fuzzer itself broke, 0 otherwise.

    python scripts/fuzz.py --mutants 3000 --seed 1 [--preloads 1,2] [--jobs J] [--out DIR] [--timeout T]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

# the repository root too, so that a checkout runs it without installing the package
sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

from fuzzing import campaign, summary  # noqa: E402
from fuzzing.anatomy import Anatomy  # noqa: E402
from fuzzing.mutators import apply  # noqa: E402
from fuzzing.oracle import judge  # noqa: E402
from pto_transpile.soundness import check  # noqa: E402


def _preloads(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected preloads like 1,2, got {text!r}") from None
    if not values or min(values) < 0:
        raise argparse.ArgumentTypeError(f"expected non-negative preloads like 1,2, got {text!r}")
    return tuple(sorted(set(values)))


def _positive(kind):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
        return value
    return parse


def _lengthened(path: str, text: str, seed: int) -> str:
    """`text` with one loop-bounding module constant multiplied (itself when it has none)."""
    made = apply("lengthen_loop", Anatomy(text, path), random.Random(f"{seed}:{path}"))
    return made[0] if made else text


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mutants", type=_positive(int), default=100, help="number of mutants (default 100)")
    p.add_argument("--seed", type=int, default=0, help="mutants are a function of the seed (default 0)")
    p.add_argument("--preloads", type=_preloads, default=(1, 2), help="preloads to transpile at (default 1,2)")
    p.add_argument("--jobs", type=_positive(int), default=os.cpu_count() or 1, help="worker processes (default: CPUs)")
    p.add_argument("--out", type=Path, default=Path("fuzz_failures"),
                   help="reproducers go here (default fuzz_failures/)")
    p.add_argument("--timeout", type=_positive(float), default=None,
                   help="seconds per mutant before it counts as a hang (default 120; with --lengthen 600: a "
                        "lengthened FlashAttention mutant, its emulator runs on 1, 2 and 3 blocks at each "
                        "preload, takes 45 s alone and past 120 s beside another on a slow machine)")
    p.add_argument("--shrink-tests", type=int, default=150, help="most candidate runs when shrinking one failure "
                   "(0: do not shrink)")
    p.add_argument("--shrink-time", type=float, default=60.0, help="most seconds spent shrinking one failure")
    p.add_argument("--shrink-all", action="store_true",
                   help="shrink every failure, not only the first of each (fingerprint, kernel file, mutator)")
    p.add_argument("--long-run", type=_positive(int), default=None,
                   help="statements after which the soundness check calls a run of static sizes long and proves "
                        "it at representative trip counts (default: the check's own); a low value puts that "
                        "argument under test on every mutant whose loops pass its bound (see lengthen_loop)")
    p.add_argument("--lengthen", action="store_true",
                   help="mutate lengthened kernels: each base file first gets `lengthen_loop` (its loops x5..7), "
                        "so defects meet long loops (use with a low --long-run)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.long_run is not None:  # workers are forked from this process and inherit it
        check.LONG_RUN = args.long_run
    timeout = args.timeout if args.timeout is not None else (600.0 if args.lengthen else 120.0)
    settings = campaign.Settings(preloads=args.preloads, jobs=args.jobs, timeout=timeout, out=args.out,
                                 shrink_tests=args.shrink_tests, shrink_seconds=args.shrink_time,
                                 shrink_all=args.shrink_all, seed=args.seed)
    started = time.monotonic()
    files = campaign.kernel_files()
    if args.lengthen:
        files = [(path, _lengthened(path, text, args.seed)) for path, text in files]
    weights = campaign.base_weights(files, settings.preloads)
    mutants = campaign.make_mutants(args.seed, args.mutants, files, weights)
    judge(files[0][1], settings.preloads[:1], files[0][0])  # warm up once: workers are forked from here

    def progress(done: int, failing: int) -> None:
        if not args.quiet and (done % 50 == 0 or done == total):
            print(f"[fuzz] {done}/{total} judged, {failing} failing, {time.monotonic() - started:.0f} s",
                  file=sys.stderr, flush=True)

    def shrinking(done: int, count: int) -> None:
        if not args.quiet:
            print(f"[fuzz] shrunk {done}/{count} distinct failures, {time.monotonic() - started:.0f} s",
                  file=sys.stderr, flush=True)

    total = sum(m.parses for m in mutants)
    try:
        results = campaign.judge_all(mutants, settings, progress)
        campaign.save_failures(results, settings, shrinking)
    except campaign.FuzzerBug as exc:
        print(f"fuzz.py: internal error of the fuzzer (please report it):\n{exc}", file=sys.stderr)
        return 2
    t = summary.tally(results, settings.preloads)
    header = (f"pto-transpile mutation fuzzer: seed {args.seed}, {args.mutants} mutants of {len(files)} kernel files "
              f"({', '.join(f'{p} x{weights[p]}' for p, _ in files)}: files drawn by the number of preloads they are "
              f"accepted at), preloads {','.join(map(str, settings.preloads))}")
    print(summary.render(t, results, time.monotonic() - started, header))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
