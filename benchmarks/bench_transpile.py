"""What a transpile costs, against what libcst alone must spend on the same text.

Every figure is a ratio to a baseline measured in the same run, interleaved with ours (one
baseline run, one of ours, and so on), best of REPEAT: the machine's speed and load cancel.
P1 also prints the median of the ratios within a round ("paired"), steadier where the
machine's speed drifts between rounds.
Work in this process is timed in CPU time; P2, a command whose workers run in parallel, in
wall-clock time against a single process.

P1  one file: `transpile()` (read, every rule, schedule, sync graph, plan, the soundness
    check, emission) against libcst's `parse_module(text).code` of the same text, for the
    seed demo, an attention kernel of FlashAttention's size and shape
    (benchmarks/kernels/attention_kernel.py, and examples/flash_attention_dn.py when the
    repository has it, at the rows of its own test: a run of each share of its query tiles a block
    can take), and a ~700-line
    file whose kernel is a small part (the demo and many unrelated helpers), clean and with
    one error. Beside them, for reading, the FlashAttention example as it is (`pl.DYNAMIC`
    rows: the proof for every size, dozens of runs).
P2  many files: `pto-transpile --check` over FILES kernel files in one command (all cores)
    against one process doing plain libcst round trips of the same files.
P3  scaling: cost per stage for kernels of 4 to 64 stages, and cost and peak memory (the
    growth of a fresh process's peak resident size) against the file size.

Run from the repository root:

    python benchmarks/bench_transpile.py [--repeat N] [--files N] [--only p1|p2|p3] [--quick]

`--quick` runs every section on small sizes (a smoke test, not a measurement).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import libcst as cst  # noqa: E402

from pto_transpile import transpile  # noqa: E402
from pto_transpile.output.files import cpu_count  # noqa: E402
from tests.helpers import fixed_flash_attention, resized  # noqa: E402

DEMO = (ROOT / "examples" / "seed_demo.py").read_text(encoding="utf-8")
ATTENTION = (ROOT / "benchmarks" / "kernels" / "attention_kernel.py").read_text(encoding="utf-8")
FLASH_ATTENTION = ROOT / "examples" / "flash_attention_dn.py"

#: Goals of issue 11 (ratios to the libcst baseline).
GOAL_KERNEL_FILE = 1.5
GOAL_SMALL_KERNEL = 1.0
GOAL_MANY_FILES = 2.0
GOAL_MEMORY = 50.0
#: Goal of issue 16: a transpile at a production size against the same file at the bundled size.
GOAL_SIZE = 1.2

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


def big_file(lines: int = 700, base: str = DEMO) -> str:
    """`base` followed by unrelated helper functions up to about `lines` lines."""
    parts, count, i = [base], base.count("\n"), 0
    while count < lines:
        helper = HELPER.format(i=i)
        parts.append(helper)
        count += helper.count("\n")
        i += 1
    return "".join(parts)


# -- a kernel of N stages -----------------------------------------------------------------------

def stage_chain(n_stages: int, n_iter: int = 4) -> str:
    """A kernel whose pipeline loop runs `n_stages` stages, cube and vector alternating, in
    lanes of four: cube (matmul) -> vector (hand over through a cross-core UB buffer, store)
    -> cube (matmul, store) -> vector (load, relu, store). Each lane has its own buffer and
    event ids (16 lanes use all 16 ids of each direction; mutex ids, 0..31, repeat after ten
    lanes); every stage writes its own columns of `out`."""
    assert n_stages % 4 == 0 and n_stages // 4 <= 16
    lanes = n_stages // 4
    head = f'''"""{n_stages} stages in {lanes} lanes."""

import pypto_pro.language as pl

TILE = 32
HALF = TILE // 2
N_ITER = {n_iter}
STAGES = {n_stages}
'''
    funcs, calls, decls = [], [], []
    for lane in range(lanes):
        s = 4 * lane
        funcs.append(f'''

@pl.pipeline.stage
def mm_{s}(ki, a, a_l1_db, d_slot, left_db, right_db, acc_db, h{lane}_db):
    at = a_l1_db.next()
    pl.load(at, a, [ki * TILE, 0])
    left = left_db.next()
    pl.move(left, at)
    right = right_db.next()
    pl.move(right, d_slot)
    acc = acc_db.next()
    pl.matmul(acc, left, right)
    x = h{lane}_db.next()
    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)


@pl.pipeline.stage
def st_{s + 1}(ki, sub_id, out, h{lane}_db, v_db):
    x = h{lane}_db.next()
    y = v_db.next()
    pl.relu(y, x)
    pl.store(out, y, [ki * TILE + sub_id * HALF, {s + 1} * TILE])


@pl.pipeline.stage
def mm_{s + 2}(ki, a, out, a_l1_db, d_slot, left_db, right_db, acc_db):
    at = a_l1_db.next()
    pl.load(at, a, [ki * TILE, 0])
    left = left_db.next()
    pl.move(left, at)
    right = right_db.next()
    pl.move(right, d_slot)
    acc = acc_db.next()
    pl.matmul(acc, left, right)
    pl.store(out, acc, [ki * TILE, {s + 2} * TILE])


@pl.pipeline.stage
def vr_{s + 3}(ki, sub_id, a, out, v_db):
    y = v_db.next()
    pl.load(y, a, [ki * TILE + sub_id * HALF, 0])
    pl.relu(y, y)
    pl.store(out, y, [ki * TILE + sub_id * HALF, {s + 3} * TILE])
''')
        decls.append(f'''    h{lane}_db = pl.make_tile_group(
        type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs={hex(0x20000 + lane * 0x1000)},
        mutex_ids=[{11 + 2 * lane % 20}, {12 + 2 * lane % 20}],
        fwd_ids=[{lane}],
        bwd_ids=[{lane}],
    )''')
        calls += [
            f"        with pl.section_cube():\n"
            f"            mm_{s}(ki, a, a_l1_db, d_slot, left_db, right_db, acc_db, h{lane}_db)",
            f"        with pl.section_vector():\n            st_{s + 1}(ki, sub_id, out, h{lane}_db, v_db)",
            f"        with pl.section_cube():\n"
            f"            mm_{s + 2}(ki, a, out, a_l1_db, d_slot, left_db, right_db, acc_db)",
            f"        with pl.section_vector():\n            vr_{s + 3}(ki, sub_id, a, out, v_db)",
        ]
    kernel = f'''

@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))
def chain_kernel(
    a: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],
    d: pl.Tensor[[TILE, TILE], pl.DT_FP32],
    out: pl.Tensor[[N_ITER * TILE, STAGES * TILE], pl.DT_FP32],
):
{chr(10).join(decls)}
    with pl.section_cube():
        a_l1_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[0, 1],
        )
        d_l1 = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
            addrs=0x8000,
            mutex_ids=[2],
        )
        left_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[3, 4],
        )
        right_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
            addrs=0x0,
            mutex_ids=[5, 6],
        )
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ),
            addrs=0x0,
            mutex_ids=[7, 8],
        )
        d_slot = d_l1.current()
        pl.load(d_slot, d, [0, 0])
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        v_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x0,
            mutex_ids=[9, 10],
        )
    for ki in pl.range(0, N_ITER):
{chr(10).join(calls)}
'''
    return head + "".join(funcs) + kernel


# -- measuring ---------------------------------------------------------------------------------

def baseline(text: str) -> str:
    return cst.parse_module(text).code


def ours(text: str, path: str = "<bench>") -> None:
    transpile(text, path=path)


def interleaved(fns, repeat: int, clock=time.process_time, rounds: list | None = None) -> list[float]:
    """Best time of each function, run in turns so that load changes hit all of them alike.
    In-process work is timed in CPU time (other processes' load does not count); a run of
    the command, whose workers run in parallel, in wall time. `rounds`, when given, receives
    each round's times (for `paired`)."""
    best = [math.inf] * len(fns)
    for _ in range(repeat):
        times = []
        for i, fn in enumerate(fns):
            gc.collect()
            t0 = clock()
            fn()
            times.append(clock() - t0)
            best[i] = min(best[i], times[-1])
        if rounds is not None:
            rounds.append(times)
    return best


def paired(rounds: list) -> float:
    """The median over rounds of the second function's time over the first's: on a machine
    whose speed drifts (a VM's steal time), two runs of one round saw the same speed, which
    two best-of figures taken minutes apart may not. Shown beside the best-of ratio."""
    return statistics.median(b / a for a, b in rounds)


def check_clean(name: str, text: str, errors: int = 0) -> None:
    result = transpile(text, path=name)
    found = sum(1 for d in result.diagnostics if d.is_error)
    if found != errors:
        raise SystemExit(f"{name}: expected {errors} error(s), got {[str(d) for d in result.diagnostics]}")


def verdict(ratio: float, goal: float, smoke: bool) -> str:
    if smoke:
        return "(smoke run: no verdict)"
    return f"<= {goal:.1f}x {'met' if ratio <= goal else 'NOT MET'}"


def p1(repeat: int, smoke: bool = False) -> None:
    print("P1  one file: transpile() / libcst parse_module(text).code, best of", repeat)
    big = big_file(700)
    cases = [("seed demo", DEMO, 0, None), ("attention kernel (stand-in)", ATTENTION, 0, GOAL_KERNEL_FILE)]
    if FLASH_ATTENTION.exists():
        cases.append(("flash_attention_dn.py, 256 x 512", fixed_flash_attention(), None, GOAL_KERNEL_FILE))
    cases += [("~700 lines, small kernel", big, 0, GOAL_SMALL_KERNEL),
              ("same, 1 error", big.replace("fwd_ids=[0, 1],", "fwd_ids=[0, 16],", 1), 1, None)]
    print(f"  {'file':32s} {'lines':>5s} {'libcst':>9s} {'transpile':>10s} {'ratio':>6s} {'paired':>7s}  goal")
    for name, text, errors, goal in cases:
        if errors is not None:
            check_clean(name, text, errors)
        rounds: list = []
        base, mine = interleaved([lambda text=text: baseline(text), lambda text=text: ours(text)], repeat,
                                 rounds=rounds)
        ratio = mine / base
        judged = "" if goal is None else verdict(ratio, goal, smoke)
        print(f"  {name:32s} {text.count(chr(10)):5d} {base * 1e3:7.1f}ms {mine * 1e3:8.1f}ms {ratio:5.2f}x "
              f"{paired(rounds):6.2f}x  {judged}")
    where_the_time_goes([c for c in cases if c[3] is not None or c is cases[0]], repeat)
    if FLASH_ATTENTION.exists():
        size_ratio(repeat, smoke)
        dynamic_rows(smoke)


def proof_share(text: str, repeat: int) -> tuple[float, float]:
    """(CPU seconds of one transpile of `text`, the part its soundness check took), best of
    `repeat`: the check (`driver.prove`) timed where the driver calls it."""
    from pto_transpile import driver

    real = driver.prove
    spent: list[float] = []

    def timed(*args, **kwargs):
        t0 = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            spent.append(time.process_time() - t0)

    best = (math.inf, 0.0)
    driver.prove = timed
    try:
        for _ in range(repeat):
            spent.clear()
            gc.collect()
            t0 = time.process_time()
            ours(text)
            total = time.process_time() - t0
            if total < best[0]:
                best = (total, sum(spent))
    finally:
        driver.prove = real
    return best


def where_the_time_goes(cases: list, repeat: int) -> None:
    """The soundness check's share of each transpile, and what the rest costs against libcst
    alone: the goals above hold the whole transpile, proof included, to a multiple of the parse."""
    print("  where the time goes: the soundness check's share, and the rest against libcst")
    for name, text, _, _ in cases:
        total, proof = proof_share(text, repeat)
        (base,) = interleaved([lambda text=text: baseline(text)], repeat)
        print(f"    {name:32s} proof {proof * 1e3:6.1f}ms of {total * 1e3:6.1f}ms ({proof / total:4.0%}); "
              f"the rest {(total - proof) / base:4.2f}x libcst")


def size_ratio(repeat: int, smoke: bool) -> None:
    """The FlashAttention example at a production size against itself at the bundled size:
    the soundness check proves long static loops at representative trip counts, so the cost
    should not grow with the run."""
    small = fixed_flash_attention()
    large = resized(small, 4096, 32768)
    check_clean("flash attention 4096 x 32768", large)
    rounds: list = []
    base, mine = interleaved([lambda: ours(small), lambda: ours(large)], repeat, rounds=rounds)
    ratio = mine / base
    print(f"  size: flash attention 4096 x 32768 / 256 x 512: {base * 1e3:.1f}ms -> {mine * 1e3:.1f}ms "
          f"{ratio:5.2f}x (paired {paired(rounds):.2f}x)  {verdict(ratio, GOAL_SIZE, smoke)}")


def dynamic_rows(smoke: bool) -> None:
    """The FlashAttention example as it is: its rows are `pl.DYNAMIC`, so the proof runs every
    trip count up to its bound (dozens of runs), against the same file at fixed rows. No goal:
    this is what a proof for every size costs, printed so that it is seen."""
    dynamic = FLASH_ATTENTION.read_text(encoding="utf-8")
    if not smoke:
        check_clean("flash attention, pl.DYNAMIC rows", dynamic)
    rounds = 1 if smoke else 2
    base, mine = interleaved([lambda: ours(fixed_flash_attention()), lambda: ours(dynamic)], rounds)
    print(f"  dynamic rows: flash attention, every size / 256 x 512: {base * 1e3:.1f}ms -> {mine:.2f}s "
          f"{mine / base:5.1f}x (one process; the command spreads the runs over its -j processes)")


def p2(repeat: int, count: int, smoke: bool = False) -> None:
    jobs = cpu_count()
    print(f"\nP2  {count} files: pto-transpile --check (one command, {jobs} cores) / libcst round trips "
          "in one process, best of", max(1, repeat // 5))
    folder = Path(tempfile.mkdtemp(prefix="pto-bench-"))
    try:
        paths = []
        bases = (DEMO, ATTENTION, big_file(700))
        for i in range(count):
            text = bases[i % len(bases)] + f"# copy {i}\n"
            path = folder / f"kernel_{i:03d}.py"
            path.write_text(text, encoding="utf-8")
            paths.append(path)
        texts = [p.read_text(encoding="utf-8") for p in paths]
        command = [sys.executable, "-m", "pto_transpile", "--check", *map(str, paths)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's pto_transpile, whatever is installed

        def run_cli() -> None:
            proc = subprocess.run(command, cwd=folder, capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                raise SystemExit(f"pto-transpile --check failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")

        def round_trips() -> None:
            for text in texts:
                baseline(text)

        base, mine = interleaved([round_trips, run_cli], max(1, repeat // 5), clock=time.perf_counter)
        ratio = mine / base
        print(f"  libcst round trips {base:6.2f}s   pto-transpile --check {mine:6.2f}s   ratio {ratio:4.2f}x  "
              f"{verdict(ratio, GOAL_MANY_FILES, smoke)}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


#: Run in a fresh process, after a first transpile of the demo (imports, caches): the growth
#: of its peak resident size during one transpile. Native allocations (libcst's parser)
#: count too, which tracemalloc would miss. The peak is the process's own high-water mark
#: (VmHWM): ru_maxrss starts at the parent's size, since Linux keeps it across fork and exec.
_MEMORY_PROBE = """
import resource, sys
from pto_transpile import transpile


def resident(field):  # this process's VmRSS or VmHWM (Linux; kept across fork and exec: not ru_maxrss)
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith(field))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


text = open(sys.argv[1], encoding="utf-8").read()
transpile(open(sys.argv[2], encoding="utf-8").read())  # imports and caches: not what is measured
before = resident("VmRSS:")
transpile(text)
print(max(0, resident("VmHWM:") - before))
"""


def peak_memory(text: str) -> int:
    """Bytes the peak resident size of a fresh process grows by while it transpiles `text`."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", encoding="utf-8", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, f.name, str(ROOT / "examples" / "seed_demo.py")],
                             capture_output=True, text=True,
                             check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        return int(out.stdout.split()[-1])
    finally:
        os.unlink(f.name)


def p3(repeat: int, quick: bool) -> None:
    print("\nP3  scaling, best of", repeat)
    print(f"  {'stages':>6s} {'lines':>6s} {'transpile':>10s} {'per stage':>10s} {'peak MiB':>9s} {'/ source':>9s}")
    points = []
    for n in ((4, 8) if quick else (4, 8, 16, 32, 64)):
        text = stage_chain(n)
        check_clean(f"{n} stages", text)
        (t,) = interleaved([lambda text=text: ours(text)], repeat)
        points.append((n, t))
        memory = "" if quick else _memory_columns(text)  # a fresh process each: not for a smoke run
        print(f"  {n:6d} {text.count(chr(10)):6d} {t * 1e3:8.1f}ms {t / n * 1e3:8.2f}ms {memory}")
    xs, ys = [math.log(n) for n, _ in points], [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    print(f"  cost ~ stages^{slope:.2f} from {points[0][0]} to {points[-1][0]} stages (least squares on all points)")
    print(f"\n  {'lines':>6s} {'KiB':>6s} {'libcst':>9s} {'transpile':>10s} {'ratio':>6s} {'peak MiB':>9s} "
          f"{'/ source':>9s}")
    for lines in ((2000,) if quick else (700, 3000, 10000, 30000)):
        text = big_file(lines)
        base, mine = interleaved([lambda text=text: baseline(text), lambda text=text: ours(text)],
                                 max(1, repeat // 2))
        print(f"  {text.count(chr(10)):6d} {len(text.encode('utf-8')) / 1024:6.0f} {base * 1e3:7.1f}ms "
              f"{mine * 1e3:8.1f}ms {mine / base:5.2f}x {_memory_columns(text)}")


def _memory_columns(text: str) -> str:
    peak = peak_memory(text)
    return f"{peak / 2**20:9.1f} {peak / len(text.encode('utf-8')):8.1f}x"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each measurement; the best counts")
    parser.add_argument("--files", type=int, default=200, help="kernel files checked in one command (P2)")
    parser.add_argument("--quick", action="store_true", help="small sizes, one run: a smoke test")
    parser.add_argument("--only", choices=("p1", "p2", "p3"), action="append", help="run only these sections")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    sections = args.only or ("p1", "p2", "p3")
    if "p1" in sections:
        p1(repeat, args.quick)
    if "p2" in sections:
        p2(repeat, 6 if args.quick else args.files, args.quick)
    if "p3" in sections:
        p3(repeat, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
