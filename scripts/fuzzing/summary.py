"""Tally a campaign's results and print them: counts per preload, rejections by code, the
refusals cross-checked on the emulator, failures."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from fuzzing.oracle import (
    AGREED,
    CRASH,
    DISAGREED,
    DISAGREEMENT,
    EMULATOR,
    HANG,
    INCONCLUSIVE,
    INTERNAL,
    KINDS,
    NOT_SHOWN,
    OTHER,
    OUTCOMES,
    SOUNDNESS,
)

#: kinds that make the fuzzer exit non-zero: every kind of failure it records
FAILING_KINDS = KINDS


@dataclass
class Tally:
    preloads: tuple[int, ...]
    mutants: int = 0
    unparsable: int = 0
    redrawn: int = 0  #: unparsable draws discarded and drawn again
    rejected: Counter = field(default_factory=Counter)  #: preload -> count
    rejected_by_code: dict[int, Counter] = field(default_factory=dict)
    accepted: Counter = field(default_factory=Counter)
    warned: Counter = field(default_factory=Counter)
    warned_by_code: dict[int, Counter] = field(default_factory=dict)
    verified: Counter = field(default_factory=Counter)
    verified_any: int = 0  #: mutants verified at one preload at least
    verified_all: int = 0  #: mutants verified at every preload of the campaign
    unverifiable: int = 0
    unverifiable_why: Counter = field(default_factory=Counter)
    failing: dict[str, Counter] = field(default_factory=dict)  #: kind -> preload (or None) -> count
    failing_mutants: Counter = field(default_factory=Counter)  #: kind -> mutants
    verdicts: Counter = field(default_factory=Counter)  #: soundness verdict -> (mutant, preload) pairs
    crosschecked: Counter = field(default_factory=Counter)  #: preload -> refusals run on the emulator
    crosscheck: dict[str, Counter] = field(default_factory=dict)  #: outcome -> preload -> count
    crosscheck_kinds: Counter = field(default_factory=Counter)  #: "PTO061 race" -> refusals cross-checked
    hand_run: int = 0  #: mutants whose accepted hand-pipelined kernel (proven sound) ran as written
    hand_clean: int = 0  #: ... and every run of it was clean
    by_mutator: dict[str, Counter] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return any(self.failing_mutants[k] for k in FAILING_KINDS)


def _reason(message: str) -> str:
    """A short, stable key for why a serial run failed."""
    text = re.sub(r"\(at [^)]*\)", "", message)
    text = re.sub(r"\bb\d+\.\w+: ", "", text)
    text = re.sub(r"'[^']*'|`[^`]*`|\d+", "_", text)
    return " ".join(text.split())[:90]


def tally(results, preloads: tuple[int, ...]) -> Tally:
    t = Tally(preloads)
    t.rejected_by_code = {p: Counter() for p in preloads}
    t.warned_by_code = {p: Counter() for p in preloads}
    t.failing = {k: Counter() for k in KINDS}
    t.crosscheck = {o: Counter() for o in OUTCOMES}
    for r in results:
        m, j = r.mutant, r.judgement
        t.mutants += 1
        row = t.by_mutator.setdefault(m.mutator, Counter())
        row["generated"] += 1
        t.redrawn += m.redrawn
        row["redrawn"] += m.redrawn
        if not m.parses:
            t.unparsable += 1
            row["unparsable"] += 1
            continue
        if j is not None:
            for p, code in j.rejected.items():
                t.rejected[p] += 1
                t.rejected_by_code[p][code] += 1
            t.accepted.update(j.accepted)
            t.warned.update(j.warned.keys())
            for p, codes in j.warned.items():
                t.warned_by_code[p].update(codes)
            t.verified.update(j.verified)
            t.verified_any += bool(j.verified)
            t.verified_all += set(preloads) <= set(j.verified)
            row["accepted"] += bool(j.accepted)
            row["verified"] += bool(j.verified)
            if j.unverifiable:
                t.unverifiable += 1
                t.unverifiable_why[_reason(j.unverifiable)] += 1
            for c in j.crosschecked:
                t.crosschecked[c.preload] += 1
                t.crosscheck[c.outcome][c.preload] += 1
                t.crosscheck_kinds[f"{c.code} {'+'.join(c.kinds)}"] += 1
            if j.hand_runs:
                t.hand_run += 1
                t.hand_clean += all(v == "ok" for v in j.hand_runs)
        for kind in {f.kind for f in r.failures}:
            t.failing_mutants[kind] += 1
        for f in r.failures:
            t.failing[f.kind][f.preload] += 1
            if f.kind == SOUNDNESS:
                t.verdicts[f.verdict] += 1
        row["failing"] += bool(r.failures)
    return t


LABELS = {SOUNDNESS: "soundness failures", DISAGREEMENT: "check/emulator disagreements", CRASH: "crashes",
          INTERNAL: "PTO099 internal errors", EMULATOR: "emulator crashes", HANG: "hangs"}
#: the rows under "refusals cross-checked", one per outcome
CROSSCHECK_LABELS = {
    AGREED: ("  emulator agreed", "shows a problem the check names"),
    DISAGREED: ("  emulator disagreed", "contradicts a proven race/deadlock/imbalance: failures"),
    OTHER: ("  emulator found other faults", "wrong in another way (e.g. a race before a proven deadlock)"),
    NOT_SHOWN: ("  value refusals not shown", "value/argument/output/overflow, every run ok: not failures"),
    INCONCLUSIVE: ("  no verdict", "a run could not compare (serial fails, op not emulated)"),
}


def render(t: Tally, results, wall: float, header: str) -> str:
    ps = t.preloads
    cols = "".join(f"{'p' + str(p):>8}" for p in ps)

    def row(label: str, values, extra: str = "") -> str:
        return f"  {label:<30}" + "".join(f"{v:>8}" for v in values) + (f"   {extra}" if extra else "")

    out = [header, "", f"  {'':<30}{cols}"]
    out.append(row("mutants", [t.mutants]))
    out.append(row("unparsable (skipped)", [t.unparsable], f"{t.redrawn} unparsable draws drawn again"))
    out.append(row("rejected", [t.rejected[p] for p in ps]))
    out.append(row("accepted", [t.accepted[p] for p in ps]))
    warned = sorted({c for p in ps for c in t.warned_by_code[p]})
    out.append(row("  of which with warnings", [t.warned[p] for p in ps], ", ".join(warned)))
    out.append(row("verified on the emulator", [t.verified[p] for p in ps],
                   f"{t.verified_any} mutants at one preload at least, {t.verified_all} at every one"))
    out.append(row("unverifiable (serial fails)", [t.unverifiable], "mutants"))
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(t.crosscheck_kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    out.append(row("refusals cross-checked", [t.crosschecked[p] for p in ps], kinds))
    for outcome, (label, extra) in CROSSCHECK_LABELS.items():
        out.append(row(label, [t.crosscheck[outcome][p] for p in ps], extra))
    out.append(row("hand-pipelined sound, run", [t.hand_run], f"mutants accepted without PTO077 and run as written, "
                                                             f"{t.hand_clean} clean"))
    for kind in KINDS:
        per = t.failing[kind]
        extra = f"{t.failing_mutants[kind]} mutants"
        if kind == SOUNDNESS and t.verdicts:
            extra += ": " + ", ".join(f"{v} {n}" for v, n in sorted(t.verdicts.items(), key=lambda kv: (-kv[1], kv[0])))
        if per.get(None):
            extra += f", {per[None]} not tied to a preload"
        out.append(row(LABELS[kind], [per[p] for p in ps], extra))
    out.append(f"  {'wall time':<30}{wall:>8.1f} s")
    codes = sorted({c for p in ps for c in t.rejected_by_code[p]},
                   key=lambda c: (-sum(t.rejected_by_code[p][c] for p in ps), c))
    if codes:
        out += ["", "rejected by first error code:"]
        out += [row(code, [t.rejected_by_code[p][code] for p in ps]) for code in codes[:15]]
        if len(codes) > 15:
            out.append(f"  ... and {len(codes) - 15} more codes")
    if t.unverifiable_why:
        out += ["", "unverifiable, by reason:"]
        out += [f"  {n:>6}  {why}" for why, n in t.unverifiable_why.most_common(8)]
    out += ["", f"  {'by mutator':<22}{'made':>7}{'redrawn':>9}{'unparsable':>11}{'accepted':>9}{'verified':>9}"
                f"{'failing':>8}"]
    for name, c in sorted(t.by_mutator.items()):
        out.append(f"  {name:<22}{c['generated']:>7}{c['redrawn']:>9}{c['unparsable']:>11}{c['accepted']:>9}"
                   f"{c['verified']:>9}{c['failing']:>8}")
    failing = [r for r in results if r.failures]
    if failing:
        out += ["", "failures (one reproducer per mutant):"]
        for r in failing:
            kinds = ", ".join(sorted({f"{f.kind} {f.verdict}" + (f" p{f.preload}" if f.preload is not None else "")
                                      for f in r.failures}))
            where = f" -> {r.saved}" if r.saved else ""
            out.append(f"  {r.mutant.index:05d} {kinds}: {r.mutant.base}, {r.mutant.mutator}: "
                       f"{r.mutant.description}{where}")
    return "\n".join(out)
