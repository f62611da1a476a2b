"""Judge one mutant: transpile it at each preload, run what was accepted on the emulator, and
name every way it went wrong.

A soundness failure is an accepted kernel whose pipelined version, run with hardware
semantics, races, deadlocks, leaves flags unbalanced, fails, or computes anything other
than the serial version run with sequential semantics. When the serial version itself
cannot run on the emulator (an op it does not implement, a kernel error) there is nothing
to compare: the mutant is "unverifiable", not a failure.
"""

from __future__ import annotations

import ast
import re
import traceback
from dataclasses import dataclass, field

from pto_transpile import transpile
from sim_runtime import verify

SOUNDNESS = "soundness"
CRASH = "crash"  #: an exception escaped transpile()
INTERNAL = "PTO099"  #: pto-transpile reported its own internal error
EMULATOR = "emulator crash"  #: sim_runtime failed with something that is not a simulation verdict
HANG = "hang"  #: no answer within the time limit (or the worker died)
KINDS = (SOUNDNESS, CRASH, INTERNAL, EMULATOR, HANG)

#: `verify` describes an exception that is not a SimulationError this way
_EMULATOR_BUG = "internal error in sim_runtime"
_ACCESS = re.compile(r"\b(write|read)\s+by b\d+\.(\w+) on pipe (\w+): (pl\.\w+)")


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


@dataclass
class Judgement:
    rejected: dict[int, str] = field(default_factory=dict)  #: preload -> first error code
    accepted: list[int] = field(default_factory=list)
    warned: dict[int, tuple[str, ...]] = field(default_factory=dict)  #: accepted with warnings: preload -> codes
    verified: list[int] = field(default_factory=list)  #: accepted and compared on the emulator
    unverifiable: str = ""  #: why the serial kernel could not run ("" if it ran or nothing was accepted)
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


def judge(text: str, preloads: tuple[int, ...], path: str = "mutant.py", seed: int = 0) -> Judgement:
    """Transpile `text` at every preload; verify every accepted preload against the serial kernel."""
    j = Judgement()
    accepted = {}
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
        else:
            accepted[p] = result
            j.accepted.append(p)
            if result.diagnostics:
                j.warned[p] = tuple(sorted({d.code for d in result.diagnostics}))
    if not accepted:
        return j
    kernels = list(dict.fromkeys(loop.kernel for r in accepted.values() for loop in r.loops))
    generated = {f"p{p}": r.code for p, r in accepted.items()}
    compared = set()
    for kernel in kernels:
        names = _runtime_scalars(text, kernel)
        runs = [{name: value for name in names} for value in RUNTIME_VALUES] if names else [{}]
        unverifiable = []
        for scalars in runs:
            try:
                report = verify(text, generated, kernel, path=path, seed=seed, scalars=scalars or None)
            except Exception as exc:
                j.failures.append(Failure(EMULATOR, min(accepted), type(exc).__name__, traceback.format_exc()))
                return j
            serial = report.rows[0]
            if serial.verdict != "ok":
                if serial.message.startswith(_EMULATOR_BUG):
                    j.failures.append(_row_failure(min(accepted), serial))  # the first preload that reaches it
                    return j
                unverifiable.append(f"{serial.verdict}: {serial.message}")
                continue
            for row in report.rows[1:]:
                p = int(row.version[1:])
                compared.add(p)
                if row.verdict != "ok":
                    shown = f" (with {', '.join(f'{k}={v}' for k, v in scalars.items())})" if scalars else ""
                    failure = _row_failure(p, row)
                    j.failures.append(Failure(failure.kind, failure.preload, failure.verdict,
                                              failure.message + shown, failure.detail))
        if len(unverifiable) == len(runs):
            j.unverifiable = unverifiable[0]
            return j
    j.verified = sorted(compared)
    return j


#: Values the scalar parameters added by the run-time mutators take, one run each: some
#: inside the soundness check's trials, some (4, 7) outside them.
RUNTIME_VALUES = (0, 1, 2, 4, 7)


def _runtime_scalars(text: str, kernel: str) -> list[str]:
    """The kernel's scalar parameters that a run-time mutator added (`fz_...`)."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return [a.arg for a in node.args.args if a.arg.startswith("fz_")]
    return []


def reproduces(text: str, failure: Failure, path: str = "mutant.py", seed: int = 0) -> bool:
    """Does `text` still fail the same way (kind, preload, verdict, racing ops or differing outputs)?"""
    preloads = (failure.preload,) if failure.preload is not None else ()
    if not preloads:
        return False
    return any(f.fingerprint == failure.fingerprint for f in judge(text, preloads, path, seed).failures)
