"""A fuzzing campaign: make the mutants, judge them in worker processes, shrink and save failures.

Mutant i is made from `random.Random(f"{seed}:{i}")` alone, in the parent, before any work is
handed out; results are collected by index. So the mutants, their verdicts and the summary
depend on the seed and the kernel files only, never on the number of jobs.
"""

from __future__ import annotations

import ast
import difflib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fuzzing import mutators, pool
from fuzzing.anatomy import Anatomy
from fuzzing.oracle import CRASH, DISAGREEMENT, HANG, KINDS, Failure, Judgement, judge, reproduces
from fuzzing.shrink import shrink
from pto_transpile import transpile

ROOT = Path(__file__).resolve().parents[2]
MAX_ATTEMPTS = 50  #: tries per mutant to find an applicable mutator that yields a new text


@dataclass(frozen=True)
class Mutant:
    index: int
    base: str  #: the kernel file it comes from, relative to the repository
    mutator: str
    description: str
    text: str
    parses: bool
    redrawn: int = 0  #: unparsable draws discarded before this mutant

    @property
    def path(self) -> str:
        return f"mutant_{self.index:05d}.py"


@dataclass
class Result:
    mutant: Mutant
    judgement: Judgement | None = None  #: None when unparsable, hung or died
    failures: list[Failure] = field(default_factory=list)
    saved: Path | None = None  #: the reproducer directory of the first failure


@dataclass(frozen=True)
class Settings:
    preloads: tuple[int, ...] = (1, 2)
    jobs: int = 1
    timeout: float = 120.0
    out: Path = ROOT / "fuzz_failures"
    shrink_tests: int = 150
    shrink_seconds: float = 60.0
    shrink_all: bool = False
    seed: int = 0


def kernel_files(root: Path = ROOT) -> list[tuple[str, str]]:
    """(relative path, text) of examples/*.py and golden/*/input.py; identical texts once. The
    FlashAttention examples, whose rows are `pl.DYNAMIC`, at the rows of their own test
    (`fixed_rows`): a proof for every size takes their transpile from a tenth of a second to
    seconds, and the mutators that make sizes dynamic (`shape_dynamic`, `trip_from_gm`) still
    put run-time sizes under test."""
    from tests.helpers import fixed_rows

    paths = sorted(root.glob("examples/*.py")) + sorted(root.glob("golden/*/input.py"))
    seen, out = set(), []
    for p in paths:
        text = p.read_text(encoding="utf-8")
        try:
            text = fixed_rows(text)
        except ValueError:  # not rows of the FlashAttention examples' tensors
            pass
        if text not in seen:
            seen.add(text)
            out.append((str(p.relative_to(root)), text))
    return out


def base_weights(files: list[tuple[str, str]], preloads: tuple[int, ...]) -> dict[str, int]:
    """How often to pick each kernel file as a mutant's base: the number of campaign preloads
    at which the file itself is accepted (at least 1). A mutant can only be verified at a
    preload where it is accepted, and a one-place edit rarely makes a refused kernel valid, so
    a file refused at some preload (the address-reuse FlashAttention variant at 2) is drawn
    less often there, not left out."""
    return {path: max(1, sum(transpile(text, preload=p, path=path).code is not None for p in preloads))
            for path, text in files}


def make_mutants(seed: int, count: int, files: list[tuple[str, str]],
                 weights: dict[str, int] | None = None) -> list[Mutant]:
    """`count` new mutants. A draw that does not parse is drawn again (it would test only the
    syntax-error report) and counted in `Mutant.redrawn`; only when every attempt fails to
    parse is an unparsable mutant kept (it is then skipped, and counted as such). `weights`
    (path -> weight, see `base_weights`) biases the choice of the base file; uniform without."""
    anatomies = {path: Anatomy(text, path) for path, text in files}
    bases = sorted(anatomies)
    seen = {text for _, text in files}
    out = []
    for i in range(count):
        rng = random.Random(f"{seed}:{i}")
        redrawn = 0
        unparsable: tuple[str, str, tuple[str, str]] | None = None
        chosen: tuple[str, str, tuple[str, str]] | None = None
        for _ in range(MAX_ATTEMPTS):
            base = rng.choices(bases, [weights[b] for b in bases])[0] if weights else rng.choice(bases)
            name = mutators.pick(rng)
            made = mutators.apply(name, anatomies[base], rng)
            if made is None or made[0] in seen:
                continue
            if _parses(made[0]):
                chosen = (base, name, made)
                break
            redrawn += 1
            unparsable = unparsable or (base, name, made)
        picked = chosen or unparsable
        if picked is None:
            raise RuntimeError(f"no new mutant after {MAX_ATTEMPTS} tries (mutant {i})")
        base, name, (text, description) = picked
        seen.add(text)
        out.append(Mutant(i, base, name, description, text, chosen is not None, redrawn))
    return out


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _base_text(mutant: Mutant) -> str:
    return (ROOT / mutant.base).read_text(encoding="utf-8")


def _judge_task(task) -> Judgement:
    text, preloads, path = task
    return judge(text, preloads, path)


def _reproduce_task(task) -> bool:
    text, failure, path = task
    return reproduces(text, failure, path)


#: lines a reproducer keeps: decorators (a stage stays a stage) and event-id lists (a buffer
#: keeps its direction), besides the lines the mutation itself wrote
_STRUCTURAL = ("@", "fwd_ids=", "bwd_ids=")


def _shrink_task(task) -> tuple[str, int]:
    text, failure, path, settings, base = task
    written = set(text.splitlines()) - set(base.splitlines())
    written = {line.strip() for line in written if line.strip()}

    def keep(line: str) -> bool:
        return line.startswith(_STRUCTURAL) or line in written

    def fails(candidate: str) -> bool:
        outcome = pool.call(_reproduce_task, (candidate, failure, path), settings.timeout)
        return isinstance(outcome, pool.Done) and outcome.value

    return shrink(text, fails, max_tests=settings.shrink_tests, max_seconds=settings.shrink_seconds, keep=keep)


class FuzzerBug(Exception):
    """The fuzzer itself failed (not the transpiler or the emulator)."""


def judge_all(mutants: list[Mutant], settings: Settings, progress: Callable[[int, int], None] = lambda d, f: None
              ) -> list[Result]:
    results = {m.index: Result(m) for m in mutants}
    todo = [m for m in mutants if m.parses]
    tasks = [(m.text, settings.preloads, m.path) for m in todo]
    failing = done = 0
    for i, outcome in pool.run(_judge_task, tasks, jobs=settings.jobs, timeout=settings.timeout):
        result = results[todo[i].index]
        if isinstance(outcome, pool.Done):
            result.judgement = outcome.value
            result.failures = list(outcome.value.failures)
        elif isinstance(outcome, pool.Hung):
            result.failures = [Failure(HANG, None, "hang", f"no answer within {settings.timeout:g} s")]
        elif isinstance(outcome, pool.Died):
            result.failures = [Failure(CRASH, None, "worker died",
                                       f"the worker process died with exit code {outcome.exitcode}")]
        else:
            raise FuzzerBug(f"{todo[i].path}: {outcome.traceback}")
        done += 1
        failing += bool(result.failures)
        progress(done, failing)
    return [results[m.index] for m in mutants]


def first_failure(result: Result) -> Failure:
    """The failure a reproducer is shrunk for: the lowest preload, most serious kind first."""
    return min(result.failures, key=lambda f: (KINDS.index(f.kind), f.preload if f.preload is not None else -1))


def _class_key(result: Result) -> tuple:
    """Failures with the same key are taken to be one bug: only the first is shrunk by default."""
    return first_failure(result).fingerprint, result.mutant.base, result.mutant.mutator


def save_failures(results: list[Result], settings: Settings,
                  progress: Callable[[int, int], None] = lambda done, total: None) -> None:
    """Shrink the first failure of every failing mutant (in worker processes) and write it out.

    Unless `shrink_all`, a failure with the same fingerprint (kind, preload, verdict, racing
    ops or differing outputs), kernel file and mutator as an earlier one is saved unshrunk
    and points at that one: a 3,000-mutant run then shrinks each bug once, not 200 times."""
    failing = [r for r in results if r.failures]
    first_of: dict[tuple, Result] = {}
    same_as: dict[int, Result] = {}
    for i, r in enumerate(failing):
        key = _class_key(r)
        if key in first_of and not settings.shrink_all:
            same_as[i] = first_of[key]
        first_of.setdefault(key, r)
    tasks = [(r.mutant.text, first_failure(r), r.mutant.path, settings, _base_text(r.mutant)) for r in failing]
    shrinkable = [i for i, t in enumerate(tasks)
                  if t[1].preload is not None and settings.shrink_tests > 0 and i not in same_as]
    shrunk: dict[int, tuple[str, int] | None] = {}
    limit = settings.shrink_seconds + 2 * settings.timeout + 30
    for k, outcome in pool.run(_shrink_task, [tasks[i] for i in shrinkable], jobs=settings.jobs, timeout=limit):
        if isinstance(outcome, pool.Raised):
            raise FuzzerBug(f"shrinking {tasks[shrinkable[k]][2]}: {outcome.traceback}")
        shrunk[shrinkable[k]] = outcome.value if isinstance(outcome, pool.Done) else None
        progress(len(shrunk), len(shrinkable))
    for i, result in enumerate(failing):
        if i in same_as:
            note = (f"not shrunk: the same failure, kernel file and mutator as mutant {same_as[i].mutant.index} "
                    f"({same_as[i].saved})")
        elif settings.shrink_tests <= 0:
            note = "not shrunk (--shrink-tests 0)"
        elif first_failure(result).preload is None:
            note = "not shrunk: hangs and dead workers are saved as they are"
        else:
            note = "not shrunk: the shrinker ran out of time"
        result.saved = write_reproducer(result, first_failure(result), shrunk.get(i), settings, note)


def _slug(failure: Failure) -> str:
    return failure.kind.lower().replace(" ", "-") + (f"-p{failure.preload}" if failure.preload is not None else "")


def write_reproducer(result: Result, failure: Failure, shrunk: tuple[str, int] | None, settings: Settings,
                     note: str = "") -> Path:
    m = result.mutant
    folder = settings.out / f"seed{settings.seed}-{m.index:05d}-{_slug(failure)}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "original.py").write_text(m.text, encoding="utf-8")
    diff = difflib.unified_diff(_base_text(m).splitlines(keepends=True), m.text.splitlines(keepends=True),
                                f"a/{m.base}", f"b/{m.base}")
    (folder / "mutation.diff").write_text("".join(diff), encoding="utf-8")
    lines = [
        f"mutant {m.index} of seed {settings.seed}: {m.base}, {m.mutator}: {m.description}",
        f"failure: {failure.kind} ({failure.verdict})"
        + (f" at preload {failure.preload}" if failure.preload is not None else ""),
    ]
    lines += [f"also: {f.kind} ({f.verdict}) at preload {f.preload}" for f in result.failures if f is not failure]
    if result.judgement is not None and result.judgement.warned:
        lines.append("accepted with warnings: " + "; ".join(f"p{p} {', '.join(codes)}"
                                                         for p, codes in sorted(result.judgement.warned.items())))
    if shrunk is not None:
        text, tests = shrunk
        (folder / "shrunk.py").write_text(text, encoding="utf-8")
        lines.append(f"shrunk: {len(m.text.splitlines())} -> {len(text.splitlines())} lines in {tests} tests")
        target = "shrunk.py"
    else:
        lines.append(note)
        target = "original.py"
    if failure.kind == DISAGREEMENT:
        lines.append(f"reproduce: pto-transpile {folder / target} --preload {failure.preload} (the refusal); the "
                     "emulator ran the code transpile() writes with _skip_rules=['PTO061'] (a hand-pipelined kernel: "
                     "the file as written)")
    elif failure.preload is not None:
        lines.append(f"reproduce: pto-transpile {folder / target} --preload {failure.preload} --simulate")
    lines += ["", failure.message.rstrip(), ""]
    (folder / "verdict.txt").write_text("\n".join(lines), encoding="utf-8")
    return folder
