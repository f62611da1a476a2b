"""Judge one mutant: transpile it at each preload, run what was accepted on the emulator, and
name every way it went wrong; run what the soundness check refused with a proof on the
emulator too, and say whether the two agree.

A soundness failure is an accepted kernel whose pipelined version, run with hardware
semantics, races, deadlocks, leaves flags unbalanced, fails, or computes anything other
than the serial version run with sequential semantics. When the serial version itself
cannot run on the emulator (an op it does not implement, a kernel error) there is nothing
to compare: the mutant is "unverifiable", not a failure. A kernel that spreads its work over
blocks (`pl.get_block_num()`) is run on 1, 2 and 3 blocks (`BLOCK_DIMS`, its runs taking
them in turn): a race or a different
result that shows only between blocks is a soundness failure like any other, although the
soundness check models one block.

Refused mutants are cross-checked against the emulator (`CrossCheck`). The kind of each
PTO061 ("not proven equivalent") or PTO068 (proven fault in hand-written syncs) error is
read back from its hint, which is the soundness check's hint for that kind of problem. A
mutant refused with PTO061 alone is transpiled again with PTO061 skipped and that pipelined
code is run against the serial kernel exactly as an accepted one is (same seed, same
run-time scalar values, plus the scalar values the check names in "shown with ..."). A
hand-pipelined mutant refused with PTO068 alone is run as written with hardware semantics
(its outputs are not compared: it has no serial version), once, at the first preload
that refuses it (PTO068 does not depend on the preload). Each run of the emulator gives one
verdict: ok, mismatch, race, deadlock, imbalance, overflow; or no verdict (the serial run
failed, an op is not emulated, the kernel raised an error, an input cannot be made). For a
kernel run as written, ok means the run ended with no race, deadlock, imbalance or overflow.

What the emulator must show for each kind the check proves (it *shows* the problem):

    race        a race, different outputs, or a deadlock
    deadlock    a deadlock
    unbalanced  unbalanced flags at the end of the run

and what contradicts that proof (a run that *contradicts* it):

    race        a run that ends with every access ordered and equal outputs (ok)
    deadlock    a run that ends (ok, mismatch, imbalance: each is decided once every core finished)
    unbalanced  a run that ends with balanced flags (ok, mismatch)

The outcome of one refusal (one preload, all its runs) is

    agreed        some run shows a problem the check names;
    disagreed     the check proves one of the kinds above, no run shows it and every run
                  contradicts it: a DISAGREEMENT failure (one side is wrong);
    other         no run shows it, but some run finds the kernel wrong another way (a race
                  stops the emulator before a proven deadlock could happen; a check that
                  proves a race and an emulator that ends with unbalanced flags);
    not shown     the check refuses with value, argument, output or overflow and every run
                  is ok: not a failure. Equal outputs happen by coincidence of the data (a
                  scale of 1.0 read one iteration early; an argument that differs only in a
                  run the inputs do not reach), and an overflow of an event counter depends
                  on how far one core runs ahead, which the emulator's one schedule need not
                  reach. Different outputs (mismatch) or an overflow count as agreed.
    inconclusive  a run gave no verdict and none shows the problem.

A race the check reports through an access it could not place exactly (under a condition
it cannot decide, a scalar GM access standing for the whole tensor) counts as proven here
too: a disagreement on it points at that imprecision, which the failure's message shows.

Refusals whose kinds the check cannot decide (unmodelled, nonuniform, blocks, cases, offsets, dynamic,
size, undecided) are not run: the check gives no verdict on them. A run that never ends is a hang
of the whole mutant, as for accepted kernels (the emulator reports a deadlock itself when
every unfinished core is blocked, so a run that never ends is a fault of the emulator).

The other direction, accepted means the emulator must agree, is the soundness failure for a
kernel pto-transpile pipelined. A hand-pipelined kernel is accepted as written (it is not
transformed, so there is nothing to compare it with); when the check neither proves a fault
in its syncs (PTO068) nor leaves one undecided (PTO077), it is proven sound, so it is run as
written once, at the first preload, and a race, deadlock, imbalance or overflow there is a
disagreement failure too (`Judgement.hand_runs`).
"""

from __future__ import annotations

import ast
import re
import traceback
from dataclasses import dataclass, field, replace

import numpy as np

from pto_transpile import transpile
from pto_transpile.read.pipelined import BY_HAND, pipelined_as
from pto_transpile.read.reader import read
from pto_transpile.rules.hand_sync_unsound import HAND_HINTS
from pto_transpile.soundness.proof import HINTS
from sim_runtime import verify
from sim_runtime.api import run_kernel
from sim_runtime.verify import _describe, _verdict, make_inputs

SOUNDNESS = "soundness"
DISAGREEMENT = "disagreement"  #: the check proves a problem that the emulator's runs contradict
CRASH = "crash"  #: an exception escaped transpile()
INTERNAL = "PTO099"  #: pto-transpile reported its own internal error
EMULATOR = "emulator crash"  #: sim_runtime failed with something that is not a simulation verdict
HANG = "hang"  #: no answer within the time limit (or the worker died)
KINDS = (SOUNDNESS, DISAGREEMENT, CRASH, INTERNAL, EMULATOR, HANG)

NOT_PROVEN = "PTO061"
HAND_UNSOUND = "PTO068"
HAND_UNDECIDED = "PTO077"

#: the emulator's verdicts that show a race the check reports (between two pipeline loops too)
_RACE_SHOWN = frozenset({"race", "mismatch", "deadlock"})
#: the emulator's verdicts that show each kind of problem the check reports
SHOWS = {
    "race": _RACE_SHOWN,
    "loops": _RACE_SHOWN,
    "deadlock": frozenset({"deadlock"}),
    "unbalanced": frozenset({"imbalance"}),
    "value": frozenset({"mismatch"}),
    "after_loop": frozenset({"mismatch"}),  # a read after a pipeline loop, of what its last stages write
    "argument": frozenset({"mismatch"}),
    "output": frozenset({"mismatch"}),
    "overflow": frozenset({"overflow"}),
}
#: the verdicts that contradict a proof of each kind (only these kinds can disagree)
CONTRADICTS = {
    "race": frozenset({"ok"}),
    "loops": frozenset({"ok"}),  # a race between two pipeline loops
    "deadlock": frozenset({"ok", "mismatch", "imbalance"}),
    "unbalanced": frozenset({"ok", "mismatch"}),
}
#: the verdicts of a run that found the kernel wrong
WRONG = frozenset({"mismatch", "race", "deadlock", "imbalance", "overflow"})

AGREED, DISAGREED, OTHER, NOT_SHOWN, INCONCLUSIVE = "agreed", "disagreed", "other", "not shown", "inconclusive"
OUTCOMES = (AGREED, DISAGREED, OTHER, NOT_SHOWN, INCONCLUSIVE)

#: `verify` describes an exception that is not a SimulationError this way
_EMULATOR_BUG = "internal error in sim_runtime"
_ACCESS = re.compile(r"\b(write|read)\s+by b\d+\.(\w+) on pipe (\w+): (pl\.\w+)")
#: an access as the soundness check names it: `op` on PIPE of CORE
_CHECK_ACCESS = re.compile(r"`([\w.]+)` on (\w+) of (\w+)")
_SHOWN_WITH = re.compile(r"\(shown with ([^()]*)\)")
_FIELD = re.compile(r"\{[A-Za-z_][\w.]*\}")


@dataclass(frozen=True)
class Failure:
    kind: str
    preload: int | None  #: None when it concerns the mutant as a whole (a hang)
    verdict: str  #: race, mismatch, deadlock, imbalance, overflow, error; or the exception type
    message: str
    detail: tuple = ()  #: what must stay the same while shrinking (the racing ops, the differing outputs)

    @property
    def fingerprint(self) -> tuple:
        return self.kind, self.preload, self.verdict, self.detail


@dataclass(frozen=True)
class CrossCheck:
    """A refusal with a verdict of the soundness check, and what the emulator made of it."""

    preload: int
    code: str  #: PTO061 or PTO068
    kinds: tuple[str, ...]  #: the kinds of problem the check reports
    outcome: str = INCONCLUSIVE  #: one of OUTCOMES
    verdicts: tuple[str, ...] = ()  #: the emulator's verdict of each run


@dataclass
class Judgement:
    rejected: dict[int, str] = field(default_factory=dict)  #: preload -> first error code
    accepted: list[int] = field(default_factory=list)
    warned: dict[int, tuple[str, ...]] = field(default_factory=dict)  #: accepted with warnings: preload -> codes
    verified: list[int] = field(default_factory=list)  #: accepted and compared on the emulator
    unverifiable: str = ""  #: why the serial kernel could not run ("" if it ran or nothing was accepted)
    crosschecked: list[CrossCheck] = field(default_factory=list)  #: refusals run on the emulator
    #: verdicts of the runs of accepted hand-pipelined kernels the check proves sound
    hand_runs: tuple[str, ...] = ()
    failures: list[Failure] = field(default_factory=list)


def _race_detail(message: str) -> tuple:
    return tuple(sorted(set(_ACCESS.findall(message))))


def _row_failure(preload: int | None, row) -> Failure:
    if row.message.startswith(_EMULATOR_BUG):
        return Failure(EMULATOR, preload, row.verdict, row.message)
    if row.verdict == "race":
        return Failure(SOUNDNESS, preload, "race", row.message, _race_detail(row.message))
    if row.verdict == "mismatch":
        differ = tuple(sorted(name for name, diff in row.max_diff.items() if diff != 0))
        return Failure(SOUNDNESS, preload, "mismatch", f"{row.message}: {', '.join(differ)}", differ)
    return Failure(SOUNDNESS, preload, row.verdict, row.message)


def _hint_pattern(template: str) -> re.Pattern:
    return re.compile("(?s)" + ".+?".join(re.escape(part) for part in _FIELD.split(template)))


_KIND_OF = {code: [(kind, _hint_pattern(t)) for kind, t in hints.items()]
            for code, hints in ((NOT_PROVEN, HINTS), (HAND_UNSOUND, HAND_HINTS))}


def problem_kind(diagnostic) -> str:
    """The kind of problem (race, deadlock, ...) a PTO061 or PTO068 diagnostic reports, read
    from its hint; "" when the hint is not one of that kind's."""
    return next((kind for kind, pattern in _KIND_OF.get(diagnostic.code, ()) if pattern.fullmatch(diagnostic.hint)),
                "")


def _refusal(result) -> tuple[str, list] | None:
    """(code, its diagnostics) when every error of `result` is PTO061, or every one PTO068."""
    errors = [d for d in result.diagnostics + result.hidden if d.is_error]
    codes = {d.code for d in errors}
    if len(codes) == 1 and codes <= {NOT_PROVEN, HAND_UNSOUND}:
        return codes.pop(), errors
    return None


def outcome(kinds, verdicts) -> str:
    """The outcome of one refusal whose problems are of `kinds`, given the emulator's verdict
    of each run (see the module docstring)."""
    proven = [k for k in kinds if k in CONTRADICTS]
    if any(v in SHOWS.get(k, ()) for k in kinds for v in verdicts):
        return AGREED
    if proven and verdicts and all(any(v in CONTRADICTS[k] for k in proven) for v in verdicts):
        return DISAGREED
    if any(v in WRONG for v in verdicts):
        return OTHER
    if verdicts and all(v == "ok" for v in verdicts):
        return NOT_SHOWN
    return INCONCLUSIVE


def _checked(kinds) -> bool:
    """Whether the emulator is asked about a refusal with problems of `kinds`."""
    return any(k in SHOWS for k in kinds)


def _shown_scalars(diagnostics) -> list[dict]:
    """The scalar values the check names for its problem ("(shown with n=3, ...)")."""
    out = []
    for d in diagnostics:
        for group in _SHOWN_WITH.findall(d.message):
            pairs = [p.strip().split("=") for p in group.split(",")]
            values = {k.strip(): int(v) for k, v in (p for p in pairs if len(p) == 2)
                      if k.strip().isidentifier() and re.fullmatch(r"-?\d+", v.strip())}
            if values and values not in out:
                out.append(values)
    return out


def _disagreement(check: CrossCheck, diagnostics, runs: list[str]) -> Failure:
    kinds = tuple(k for k in check.kinds if k in CONTRADICTS)
    ops = tuple(sorted({m for d in diagnostics if problem_kind(d) == "race"
                        for m in _CHECK_ACCESS.findall(d.message)}))
    shown = "; ".join(f"{d.code} ({problem_kind(d) or '?'}) line {d.line}: {d.message}" for d in diagnostics)
    message = (f"the soundness check proves {', '.join(kinds)} ({check.code}), the emulator's runs contradict it:\n"
               f"  check: {shown}\n" + "".join(f"  emulator: {r}\n" for r in runs))
    if check.code == NOT_PROVEN:
        message += f"  (the emulator ran transpile(..., preload={check.preload}, _skip_rules=['PTO061']).code)\n"
    return Failure(DISAGREEMENT, check.preload, f"{'+'.join(kinds)} vs {'/'.join(sorted(set(check.verdicts)))}",
                   message, (check.code, kinds, ops))


def judge(text: str, preloads: tuple[int, ...], path: str = "mutant.py", seed: int = 0) -> Judgement:
    """Transpile `text` at every preload; verify every accepted preload against the serial
    kernel, and cross-check on the emulator every refusal the soundness check gives a verdict on."""
    j = Judgement()
    accepted = {}
    refused: dict[int, tuple[list, str, list[str]]] = {}  #: preload -> (PTO061 diagnostics, code, kernels)
    hand: tuple[int, list, list[str]] | None = None  #: (preload, PTO068 diagnostics, hand-pipelined kernels)
    for p in preloads:
        try:
            result = transpile(text, preload=p, path=path)
        except Exception as exc:
            j.failures.append(Failure(CRASH, p, type(exc).__name__, traceback.format_exc()))
            continue
        internal = [d for d in result.diagnostics + result.hidden if d.code == INTERNAL]
        if internal:
            j.failures.append(Failure(INTERNAL, p, INTERNAL, internal[0].message))
        elif result.code is None:
            j.rejected[p] = next((d.code for d in result.diagnostics + result.hidden if d.is_error), "?")
            refusal = _refusal(result)
            if refusal is None or not _checked([problem_kind(d) for d in refusal[1]]):
                continue
            code, diagnostics = refusal
            if code == HAND_UNSOUND:
                if hand is None:
                    hand = (p, diagnostics, _hand_kernels(result))
                continue
            try:
                again = transpile(text, preload=p, path=path, _skip_rules=[NOT_PROVEN])
            except Exception as exc:
                j.failures.append(Failure(CRASH, p, type(exc).__name__, traceback.format_exc()))
                continue
            if again.code is not None:
                refused[p] = (diagnostics, again.code, [loop.kernel for loop in again.loops])
        else:
            accepted[p] = result
            j.accepted.append(p)
            if result.diagnostics:
                j.warned[p] = tuple(sorted({d.code for d in result.diagnostics}))
    if hand is not None:
        _cross_check_hand(text, hand, path, seed, j)
    elif accepted:
        _run_sound_hand(text, min(accepted), accepted[min(accepted)], path, seed, j)
    if accepted or refused:
        _emulate(text, accepted, refused, path, seed, j)
    return j


def _emulate(text: str, accepted: dict, refused: dict, path: str, seed: int, j: Judgement) -> None:
    """Run the serial kernel and every accepted and every refused version on the same inputs:
    one run per kernel, launch (`_launches`) and run-time value (of the scalars and the
    contents of the GM tensors a run-time mutator added), and for a refused version also at
    the scalar values its refusal names."""
    kernels = list(dict.fromkeys([loop.kernel for r in accepted.values() for loop in r.loops]
                                 + [k for v in refused.values() for k in v[2]]))
    generated = {f"p{p}": r.code for p, r in accepted.items()} | {f"r{p}": v[1] for p, v in refused.items()}
    runs_of: dict[int, list[tuple[str, str]]] = {p: [] for p in refused}  #: (verdict, description) per run
    first = min(accepted or refused)  # the preload a failure of the serial run is reported at
    compared = set()
    for kernel in kernels:
        runs, base = _runs(text, kernel, path, generated, refused)
        unverifiable = []
        for i, (scalars, tensors, versions, launch) in enumerate(runs):
            shown = _with(scalars, tensors, launch.words)
            try:
                report = verify(text, versions, kernel, path=path, seed=seed, scalars=scalars or None,
                                shapes=launch.shapes or None, block_dim=launch.block_dim, tensors=tensors or None)
            except Exception as exc:
                j.failures.append(Failure(EMULATOR, first, type(exc).__name__, traceback.format_exc()))
                return
            serial = report.rows[0]
            if serial.verdict != "ok":
                if serial.message.startswith(_EMULATOR_BUG):
                    j.failures.append(_row_failure(first, serial))
                    return
                for label in versions:
                    if label.startswith("r"):
                        runs_of[int(label[1:])].append(("no verdict", f"{kernel}{shown}: the serial kernel fails: "
                                                        f"{serial.verdict}"))
                if i < base:
                    unverifiable.append(f"{serial.verdict}: {serial.message}")
                continue
            for row in report.rows[1:]:
                p = int(row.version[1:])
                if row.version.startswith("r"):
                    if row.message.startswith(_EMULATOR_BUG):
                        j.failures.append(_row_failure(p, row))
                    runs_of[p].append((row.verdict, f"{kernel}{shown}: {row.verdict_text.splitlines()[0]}"
                                       if row.verdict_text else f"{kernel}{shown}: {row.verdict}"))
                    continue
                compared.add(p)
                if row.verdict != "ok":
                    failure = _row_failure(p, row)
                    j.failures.append(Failure(failure.kind, failure.preload, failure.verdict,
                                              failure.message + shown, failure.detail))
        if len(unverifiable) == base:
            if accepted:
                j.unverifiable = unverifiable[0]
            compared = set()
            break
    j.verified = sorted(compared)
    for p, (diagnostics, _, _) in sorted(refused.items()):
        _conclude(j, p, NOT_PROVEN, diagnostics, runs_of[p])


def _runs(text: str, kernel: str, path: str, generated: dict, refused: dict) -> tuple[list[tuple], int]:
    """The runs of `kernel`, (scalars, tensor contents, versions, launch) each, and how many of
    them run every version (the others run one refused version at the scalar values its
    refusal names): each run-time value at each launch, on the block counts of `_on_blocks`."""
    values = _value_runs(text, kernel)
    runs = [(scalars, tensors, generated) for scalars, tensors in values]
    base = len(runs)
    params = _params(text, kernel)
    for p, (diagnostics, code, _) in refused.items():
        for scalars in _shown_scalars(diagnostics):
            if set(scalars) <= params and all(scalars != s for s, _, _ in runs):
                runs.append((scalars, values[-1][1], {f"r{p}": code}))
    launches = _launches(text, kernel, path)
    out = [({**scalars, **launch.values}, tensors, versions, launch)
           for scalars, tensors, versions in runs for launch in launches]
    base *= len(launches)
    return _on_blocks(out, base) if "get_block_num" in text else (out, base)


def _on_blocks(runs: list[tuple], base: int) -> tuple[list[tuple], int]:
    """The runs of a kernel that spreads its work over blocks, each on the next of
    `BLOCK_DIMS` in turn, the first `base` repeated until every block count has one. In turn,
    not every run on every count: a mutant of FlashAttention at five run-time values takes
    about 30 s, three times as many runs overran the time a mutant is given."""
    more = max(0, len(BLOCK_DIMS) - base)
    runs = runs[:base] + [runs[i % base] for i in range(more)] + runs[base:]
    return [(scalars, tensors, versions, replace(launch, block_dim=BLOCK_DIMS[i % len(BLOCK_DIMS)]))
            for i, (scalars, tensors, versions, launch) in enumerate(runs)], base + more


def _hand_kernels(result) -> list[str]:
    if result.source is None:
        return []
    file = read(result.source)
    return [k.name for k in file.kernels if (pipelined_as(k, file) or "").startswith(BY_HAND)]


def _scalar_runs(text: str, kernel: str, diagnostics=()) -> list[tuple[dict, dict]]:
    """(scalar values, tensor contents) to run `kernel` with: each of RUNTIME_VALUES for the
    parameters a run-time mutator added, and the scalar values `diagnostics` name."""
    values = _value_runs(text, kernel)
    scalars = [s for s, _ in values]
    return values + [(s, values[-1][1]) for s in _shown_scalars(diagnostics)
                     if set(s) <= _params(text, kernel) and s not in scalars]


def _with(scalars: dict, tensors: dict, words: str = "") -> str:
    """How a run is named in reports: " (with n=4, lens=[4], block_dim=2)", or "" for the default run."""
    if not (scalars or tensors or words):
        return ""
    parts = [f"{k}={v}" for k, v in scalars.items()] + [f"{k}={v.tolist()}" for k, v in tensors.items()]
    return f" (with {', '.join(parts)}{words})"


def _run_sound_hand(text: str, preload: int, result, path: str, seed: int, j: Judgement) -> None:
    """Run the hand-pipelined kernels of an accepted mutant as written when the check proves
    their syncs sound (no PTO077); a fault the emulator finds there is a disagreement."""
    if "set_cross_core" not in text or any(d.code == HAND_UNDECIDED for d in result.diagnostics + result.hidden):
        return
    verdicts = []
    for kernel in _hand_kernels(result):
        for scalars, tensors in _scalar_runs(text, kernel):
            verdict, message = _run_as_written(text, kernel, path, seed, scalars, tensors)
            verdicts.append(verdict)
            if message.startswith(_EMULATOR_BUG):
                j.failures.append(Failure(EMULATOR, preload, verdict, message))
            elif verdict in WRONG:
                shown = _with(scalars, tensors)
                j.failures.append(Failure(
                    DISAGREEMENT, preload, f"sound vs {verdict}",
                    f"the soundness check finds the syncs of the hand-pipelined `{kernel}` sound (no PTO068, no "
                    f"PTO077), the emulator's run as written{shown} does not:\n  {message}",
                    _race_detail(message) if verdict == "race" else ()))
    j.hand_runs = tuple(verdicts)


def _cross_check_hand(text: str, hand: tuple[int, list, list[str]], path: str, seed: int, j: Judgement) -> None:
    """Run each hand-pipelined kernel as written, with hardware semantics, on the inputs an
    accepted kernel gets, and compare what it shows with the PTO068 errors."""
    p, diagnostics, kernels = hand
    runs = []
    for kernel in kernels:
        for scalars, tensors in _scalar_runs(text, kernel, diagnostics):
            shown = _with(scalars, tensors)
            verdict, message = _run_as_written(text, kernel, path, seed, scalars, tensors)
            if message.startswith(_EMULATOR_BUG):
                j.failures.append(Failure(EMULATOR, p, verdict, message))
            first = message.splitlines()[0] if message else ""
            runs.append((verdict, f"{kernel}{shown} as written: {verdict}" + (f": {first}" if first else "")))
    _conclude(j, p, HAND_UNSOUND, diagnostics, runs)


def _run_as_written(text: str, kernel: str, path: str, seed: int, scalars: dict,
                    tensors: dict | None = None) -> tuple[str, str]:
    """(verdict, message) of one run of `kernel` with hardware semantics; its outputs are not
    compared with anything."""
    try:
        inputs = make_inputs(text, kernel, path=path, seed=seed, shapes=None, scalars=scalars or None,
                             tensors=tensors or None)
    except Exception as exc:
        return "no verdict", f"no inputs: {_describe(exc)}"
    try:
        run_kernel(path, kernel, inputs, source=text, mode="concurrent")
    except Exception as exc:
        return _verdict(exc), _describe(exc)
    return "ok", ""


def _conclude(j: Judgement, preload: int, code: str, diagnostics: list, runs: list[tuple[str, str]]) -> None:
    kinds = tuple(dict.fromkeys(problem_kind(d) for d in diagnostics))
    verdicts = tuple(v for v, _ in runs)
    check = CrossCheck(preload, code, kinds, outcome(kinds, verdicts), verdicts)
    j.crosschecked.append(check)
    if check.outcome == DISAGREED:
        j.failures.append(_disagreement(check, diagnostics, [d for _, d in runs]))


@dataclass(frozen=True)
class Launch:
    """How a kernel of run-time sizes, a tiling key, tiling data or work spread over blocks is
    launched for one run."""

    shapes: dict = field(default_factory=dict)  #: tensor -> shape, for `pl.DYNAMIC` dimensions
    values: dict = field(default_factory=dict)  #: tiling-key and tiling-data fields
    block_dim: int = 1

    @property
    def words(self) -> str:
        """What differs from a default launch, for reports (", a=192x32, block_dim=2")."""
        return "".join([f", {n}={'x'.join(map(str, sh))}" for n, sh in self.shapes.items()]
                       + [f", {n}={v}" for n, v in self.values.items()]
                       + ([f", block_dim={self.block_dim}"] if self.block_dim > 1 else []))


#: The size every `pl.DYNAMIC` dimension takes, per launch: two sizes, so a defect that shows
#: at one trip count only is met at either (multiples of the usual 16- and 32-row tiles).
DYNAMIC_SIZES = (192, 320)

#: The block counts a kernel that spreads its work over blocks (`pl.get_block_num()`) is
#: launched at (`_on_blocks`): one block, and an even and an odd split of the iterations, so
#: that races and wrong results between blocks are met (the soundness check models one block).
BLOCK_DIMS = (1, 2, 3)


def _launches(text: str, kernel: str, path: str) -> list[Launch]:
    """One launch per entry of `DYNAMIC_SIZES` for a kernel that needs one (run-time sizes, a
    tiling key: its first, then its last values; tiling data: fixed field values); a single
    default launch otherwise. The block count is set per run (`_on_blocks`)."""
    import inspect

    from sim_runtime.dtypes import DType
    from sim_runtime.kernelspec import launch_names
    from sim_runtime.launch import param_annotations
    from sim_runtime.loader import load_kernel_module
    from sim_runtime.tiles import TensorSpec

    try:
        k = getattr(load_kernel_module(text, path=path), kernel)
        specs = param_annotations(k)
        names = launch_names(k)
    except Exception:
        return [Launch()]  # the run reports why it cannot load
    dynamic = {n: s.shape for n, s in specs.items() if isinstance(s, TensorSpec)
               and not all(isinstance(d, int) and d > 0 for d in s.shape)}
    key = names.tiling_key.fields if names.tiling_key else {}
    # the kernel's own scalar parameters without a default (`scale: pl.DT_FP32`): a fraction for a
    # floating one, a small count for an integer one (the run-time mutators' `fz_` ones are set
    # per run)
    required = {n for n, p in inspect.signature(k.fn).parameters.items() if p.default is inspect.Parameter.empty}
    own = {n: _sample(s.name) for n, s in specs.items()
           if isinstance(s, DType) and n in required and not n.startswith("fz_")}
    if not dynamic and not key and not names.tiling_data and not own:
        return [Launch()]
    integer_fields = dict(names.tiling_data_types)
    td = {**{n: _sample(integer_fields.get(n, "")) for n in names.tiling_data}, **own}
    out = []
    for i, size in enumerate(DYNAMIC_SIZES):
        shapes = {n: tuple(d if isinstance(d, int) and d > 0 else size for d in shape) for n, shape in dynamic.items()}
        values = {**td, **{n: (f.values[0] if i == 0 else f.values[-1]) for n, f in key.items()}}
        out.append(Launch(shapes, values))
    return out


def _sample(declared: str) -> int | float:
    """A launch value for a scalar declared `declared`: a small count within an integer type's
    values (a launch passes no other), a fraction for any other type."""
    from pto_api.memory import scalar_int_values

    bounds = scalar_int_values(declared)
    return 0.5 if bounds is None else min(3, bounds[1])


#: Values the scalar parameters added by the run-time mutators take, and the contents of the
#: GM tensors they add, one run each: some inside the soundness check's trials, some (4, 7)
#: outside them.
RUNTIME_VALUES = (0, 1, 2, 4, 7)


def _kernel_def(text: str, kernel: str) -> ast.FunctionDef | None:
    return next((node for node in ast.walk(ast.parse(text))
                 if isinstance(node, ast.FunctionDef) and node.name == kernel), None)


def _runtime_scalars(text: str, kernel: str) -> list[str]:
    """The kernel's scalar parameters that a run-time mutator added (`fz_...`)."""
    node = _kernel_def(text, kernel)
    return [a.arg for a in node.args.args if a.arg.startswith("fz_") and _tensor_shape(a) is None] \
        if node is not None else []


def _runtime_tensors(text: str, kernel: str) -> dict[str, tuple[int, ...]]:
    """name -> shape of the kernel's GM tensors that a run-time mutator added (`fz_...`), whose
    contents are the run-time values (a trip count read from GM)."""
    node = _kernel_def(text, kernel)
    shapes = {a.arg: _tensor_shape(a) for a in node.args.args if a.arg.startswith("fz_")} if node is not None else {}
    return {name: shape for name, shape in shapes.items() if shape is not None}


def _tensor_shape(param: ast.arg) -> tuple[int, ...] | None:
    """The shape of a `pl.Tensor[[d0, ...], dtype]` parameter of literal dimensions; None for
    anything else."""
    ann = param.annotation
    if not (isinstance(ann, ast.Subscript) and ast.unparse(ann.value) == "pl.Tensor"
            and isinstance(ann.slice, ast.Tuple) and ann.slice.elts):
        return None
    try:
        shape = ast.literal_eval(ann.slice.elts[0])
    except (ValueError, TypeError, SyntaxError):
        return None
    return tuple(shape) if isinstance(shape, list) and all(type(d) is int and d > 0 for d in shape) else None


def _value_runs(text: str, kernel: str) -> list[tuple[dict, dict]]:
    """(scalar values, tensor contents) of each run: per entry of RUNTIME_VALUES, every added
    scalar parameter at that value and every added tensor filled with it; one run with
    neither when the kernel has none."""
    names, tensors = _runtime_scalars(text, kernel), _runtime_tensors(text, kernel)
    if not names and not tensors:
        return [({}, {})]
    return [({name: value for name in names},
             {name: np.full(shape, value, dtype=np.int32) for name, shape in tensors.items()})
            for value in RUNTIME_VALUES]


def _params(text: str, kernel: str) -> set[str]:
    node = _kernel_def(text, kernel)
    return {a.arg for a in node.args.args} if node is not None else set()


def reproduces(text: str, failure: Failure, path: str = "mutant.py", seed: int = 0) -> bool:
    """Does `text` still fail the same way (kind, preload, verdict, racing ops or differing outputs)?"""
    preloads = (failure.preload,) if failure.preload is not None else ()
    if not preloads:
        return False
    return any(f.fingerprint == failure.fingerprint for f in judge(text, preloads, path, seed).failures)
