"""`--preload auto`: per pipeline loop, the preload with the fewest simulated cycles.

For each pipeline loop in source order (the loops before it at their chosen preload, the
ones after at the kernel's own), every preload from 0 to `MAX_PRELOAD` that the rules
accept is transpiled and run on the emulator with the serial kernel, on the same inputs
(the declared tensor shapes, or the ones given); the one with the fewest cycles wins, the
smaller preload on a tie. A candidate the emulator finds wrong (a difference, a race, a
deadlock) is never chosen. When the emulator cannot run the kernel (an op it does not
implement, a dynamic shape), the choice falls back to the kernel's own preload and says
why. This runs the kernel file's Python on the emulator, as `--simulate` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pto_transpile.preload import Auto, Override

#: The largest preload tried: deeper rings only add fill and drain on real kernels.
MAX_PRELOAD = 4
#: What the reader assumes when `PipelineConfig` names no usable preload.
DEFAULT_PRELOAD = 2


@dataclass
class Candidate:
    loop: int  #: pipeline loop position, in source order
    preload: int
    cycles: int | None  #: simulated cycles of the pipelined kernel(s), None when not simulated
    verdict: str  #: "ok", "rejected" (the rules refuse it) or the emulator's verdict
    detail: str = ""
    chosen: bool = False
    bound: str = ""  #: the loop's bound in this candidate's run ("cube-bound (...), 97% of the bound")
    same_as: int | None = None  #: an earlier preload whose generated kernel is this one, text for text


@dataclass
class PreloadChoice:
    preload: Override  #: the override to transpile with; None keeps each kernel's own preload
    candidates: list[Candidate] = field(default_factory=list)
    serial_cycles: int | None = None
    note: str = ""  #: why the kernel's own preload is kept, when it is
    stage_counts: dict[int, int] = field(default_factory=dict)  #: stages of each pipeline loop

    def render(self) -> str:
        """The table of candidates, one line each, and the decision."""
        out = []
        for loop in sorted({c.loop for c in self.candidates}):
            out.append(f"preload auto, pipeline loop {loop}"
                       + (f" (serial: {self.serial_cycles} cycles)" if self.serial_cycles is not None else "") + ":")
            mine = [c for c in self.candidates if c.loop == loop]
            for c in (c for c in mine if c.same_as is None):
                cycles = "-" if c.cycles is None else str(c.cycles)
                mark = "  <- chosen" if c.chosen else ""
                verdict = c.verdict + (f": {c.detail}" if c.detail else "")
                bound = f"  {c.bound}" if c.bound and c.verdict == "ok" else ""
                out.append(f"  preload {c.preload}  cycles {cycles:>8}  {verdict}{bound}{mark}")
            out += _same_kernels(mine, self.stage_counts.get(loop))
        if self.note:
            out.append(f"preload auto: {self.note}")
        return "\n".join(out) + "\n"


def _same_kernels(candidates: list[Candidate], stages: int | None) -> list[str]:
    """One line per group of preloads that generate the kernel an earlier preload generates."""
    groups: dict[int, list[int]] = {}
    for c in candidates:
        if c.same_as is not None:
            groups.setdefault(c.same_as, []).append(c.preload)
    out = []
    for first, same in groups.items():
        span = f"{same[0]}-{same[-1]}" if len(same) > 1 else str(same[0])
        why = (" (a loop of two stages: every preload >= 1 gives delays 0 and 1, so one schedule)"
               if stages == 2 and first >= 1 else "")
        out.append(f"  preload {span}: the same kernel as preload {first}{why}, not simulated again")
    return out


def choose_preload(source: str, *, path: str = "<string>", select=None, ignore=None,
                   settings: Auto | None = None) -> PreloadChoice:
    """The preload override `--preload auto` transpiles `source` with (see the module doc)."""
    from pto_transpile.api import transpile
    from pto_transpile.pipelined import pipelined_as
    from pto_transpile.reader import read
    from pto_transpile.source import SourceFile

    settings = settings or Auto()
    try:
        file = read(SourceFile.parse(source, path))
        kernels = [k for k in file.kernels if k.loops and pipelined_as(k, file) is None]
    except Exception:  # a file that does not read is reported by the transpile itself
        return PreloadChoice(None, note="the file does not read: nothing to simulate")
    if not kernels:
        return PreloadChoice(None, note="no pipeline loop to choose a preload for")
    unknown = _unknown_names(kernels, settings)
    if unknown:
        return PreloadChoice(None, note=f"{unknown}; keeping the kernel's own preload")
    current = _own_preloads(kernels)
    choice = PreloadChoice(None)
    choice.stage_counts = _stage_counts(kernels)
    for loop in range(len(current)):
        codes: dict[str, str] = {}
        by_label: dict[str, Candidate] = {}
        seen: dict[str, Candidate] = {}  # generated code -> the first candidate that generated it
        for preload in range(MAX_PRELOAD + 1):
            trial = _override(current[:loop] + [preload] + current[loop + 1:])
            result = transpile(source, preload=trial, path=path, select=select, ignore=ignore)
            candidate = Candidate(loop, preload, None, "ok")
            choice.candidates.append(candidate)
            if not result.ok:
                error = next(d for d in result.diagnostics + result.hidden if d.is_error)
                candidate.verdict, candidate.detail = "rejected", f"{error.code} {error.message}"
                continue
            assert result.code is not None  # an accepted kernel is always written
            if result.code in seen:
                candidate.same_as = seen[result.code].preload
                continue
            seen[result.code] = candidate
            label = f"preload={preload}"
            codes[label], by_label[label] = result.code, candidate
        if not codes:
            choice.note = f"the rules accept no preload from 0 to {MAX_PRELOAD} for pipeline loop {loop}"
            return PreloadChoice(None, choice.candidates, note=choice.note + "; keeping the kernel's own")
        problem = _simulate(source, path, kernels, codes, by_label, settings, choice, loop)
        for c in choice.candidates:
            if c.loop == loop and c.same_as is not None:
                first = next(f for f in choice.candidates if f.loop == loop and f.preload == c.same_as)
                c.cycles, c.verdict, c.detail, c.bound = first.cycles, first.verdict, first.detail, first.bound
        if problem:
            return PreloadChoice(None, choice.candidates, choice.serial_cycles,
                                 f"{problem}; keeping the kernel's own preload")
        good = [c for c in by_label.values() if c.verdict == "ok"]
        if not good:
            return PreloadChoice(None, choice.candidates, choice.serial_cycles,
                                 f"no candidate for pipeline loop {loop} simulates correctly; keeping the kernel's own "
                                 "preload")
        best = min(good, key=lambda c: (c.cycles, c.preload))
        best.chosen = True
        current[loop] = best.preload
    choice.preload = _override(current)
    return choice


def _simulate(source, path, kernels, codes, by_label, settings: Auto, choice: PreloadChoice, loop: int) -> str:
    """Cycles and verdicts of every candidate, summed over the pipelined kernels, and the
    bound of pipeline loop `loop` (in the first kernel that has it); a message when the
    emulator cannot run the serial kernel."""
    from sim_runtime import verify
    from sim_runtime.bound import loop_bound

    for c in by_label.values():
        c.cycles = 0
    serial_total = 0
    for kernel in kernels:
        report = verify(source, codes, kernel.name, path=path, seed=settings.seed, block_dim=settings.block_dim,
                        shapes=dict(settings.shapes), scalars=dict(settings.scalars))
        serial, rows = report.rows[0], {r.version: r for r in report.rows[1:]}
        if serial.verdict != "ok" or serial.cycles is None:
            for c in by_label.values():
                c.cycles, c.verdict = None, "not simulated"
            return f"the emulator cannot run kernel `{kernel.name}` ({serial.verdict_text})"
        serial_total += serial.cycles
        for label, c in by_label.items():
            row = rows[label]
            if row.verdict != "ok":
                if c.verdict == "ok":
                    c.verdict, c.detail, c.cycles = row.verdict, row.message, None
            elif c.cycles is not None and row.cycles is not None:  # a run that ends "ok" has its cycles
                c.cycles += row.cycles
                if not c.bound and row.run is not None and loop < len(kernel.loops):
                    fns = {s.func for s in kernel.loops[loop].stages}
                    bound = loop_bound(row.run.timeline, list(row.run.cores), fns)
                    c.bound = bound.summary() if bound is not None else ""
    choice.serial_cycles = serial_total
    return ""


def _unknown_names(kernels, settings: Auto) -> str:
    """A shape or value given for no parameter of the kernels would silently do nothing."""
    from pto_transpile.model import TENSOR

    tensors = {p for k in kernels for p, kind in k.params.items() if kind == TENSOR}
    others = {p for k in kernels for p, kind in k.params.items() if kind != TENSOR}
    for names, known, what in ((settings.shapes, tensors, "tensor"), (settings.scalars, others, "scalar")):
        for name in names:
            if name not in known:
                listed = ", ".join(sorted(known)) or "none"
                return f"`{name}` is not a {what} parameter of the pipelined kernels ({listed})"
    return ""


def _stage_counts(kernels) -> dict[int, int]:
    """Stages of each loop position, in the first kernel that has the loop."""
    counts: dict[int, int] = {}
    for kernel in kernels:
        for i, loop in enumerate(kernel.loops):
            counts.setdefault(i, len(loop.stages))
    return counts


def _own_preloads(kernels) -> list[int]:
    """Each loop position's preload from the first kernel that has the loop."""
    out = []
    for loop in range(max(len(k.loops) for k in kernels)):
        kernel = next(k for k in kernels if len(k.loops) > loop)
        values: tuple = kernel.preload.values or ()
        value = values[0] if len(values) == 1 else values[loop] if loop < len(values) else DEFAULT_PRELOAD
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        out.append(value if ok else DEFAULT_PRELOAD)
    return out


def _override(values: list[int]) -> Override:
    return values[0] if len(values) == 1 else tuple(values)
