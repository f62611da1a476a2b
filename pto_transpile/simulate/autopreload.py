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

from collections.abc import Iterable
from dataclasses import replace

import sim_runtime
from pto_transpile.driver import BOM, transpile
from pto_transpile.preload import Auto, Candidate, Override, PreloadChoice, loop_preload
from pto_transpile.read.pipelined import pipelined_as
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.results import TranspileResult
from pto_transpile.simulate.compare import check_launch_arguments
from pto_transpile.simulate.isolated import in_child
from pto_transpile.simulate.pipeview import loop_groups
from pto_transpile.simulate.provenance import LineOrigins
from sim_runtime.bound import loop_bound
from sim_runtime.errors import annotate_locations

#: The largest preload tried: deeper rings only add fill and drain on real kernels.
MAX_PRELOAD = 4
#: What the reader assumes when `PipelineConfig` names no usable preload.
DEFAULT_PRELOAD = 2


def transpile_choosing(source: str, *, preload: Auto | None = None, path: str | None = None,
                       select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
                       preload_is_default: bool = False) -> TranspileResult:
    """`--preload auto`: choose each loop's preload on the emulator (this runs the file's
    Python), then `transpile()` with it; the candidates are in `preload_choice`. As a
    project default (`preload_is_default`), the choice leaves `sync_only=True` kernels serial."""
    choice = choose_preload(source, path=path or "<string>", select=select, ignore=ignore, settings=preload,
                            keep_sync_only=preload_is_default)
    result = transpile(source, preload=choice.preload, path=path, select=select, ignore=ignore,
                       preload_is_default=preload_is_default)
    result.preload_choice = choice
    return result


def choose_preload(source: str, *, path: str = "<string>", select: Iterable[str] | None = None,
                   ignore: Iterable[str] | None = None, settings: Auto | None = None,
                   keep_sync_only: bool = False) -> PreloadChoice:
    """The preload override `--preload auto` transpiles `source` with (see the module doc):
    `transpile(source, preload=choice.preload)` then writes the chosen kernel. Runs the
    kernel file's Python on the emulator. Raises click.BadParameter (a usage error) when
    `settings` names a shape or value no pipelined kernel takes, contradicts a declared
    shape, or lacks one the run needs, as `--simulate` does. `keep_sync_only` (auto as a
    project default): kernels marked `sync_only=True` stay serial and are not tuned."""
    settings = settings or Auto()
    source = source.removeprefix(BOM)  # (as `transpile` reads it: probe h131, "the file does not read")
    try:
        file = read(SourceFile.parse(source, path))
        kernels = [k for k in file.kernels if k.loops and pipelined_as(k, file) is None]
    except Exception:  # a file that does not read is reported by the transpile itself
        return PreloadChoice(None, note="the file does not read: nothing to simulate")
    if keep_sync_only and kernels and all(k.preload.sync_only for k in kernels):
        return PreloadChoice(None, note="every kernel is marked PipelineConfig(sync_only=True): it keeps preload 0")
    kernels = [k for k in kernels if not (keep_sync_only and k.preload.sync_only)]
    if not kernels:
        return PreloadChoice(None, note="no pipeline loop to choose a preload for")
    unread = check_launch_arguments(source, path, file, kernels, dict(settings.shapes), dict(settings.scalars))
    if unread:  # (tiling-data fields no code reads: run at 0)
        settings = replace(settings, scalars={**dict(settings.scalars), **unread})
    current = _own_preloads(kernels)
    choice = PreloadChoice(None)
    choice.stage_counts = _stage_counts(kernels)
    for loop in range(len(current)):
        codes: dict[str, str] = {}
        by_label: dict[str, Candidate] = {}
        results: dict[str, TranspileResult] = {}
        seen: dict[str, Candidate] = {}  # generated code -> the first candidate that generated it
        for preload in range(MAX_PRELOAD + 1):
            trial = _override(current[:loop] + [preload] + current[loop + 1:])
            result = transpile(source, preload=trial, path=path, select=select, ignore=ignore,
                               preload_is_default=keep_sync_only)
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
            codes[label], by_label[label], results[label] = result.code, candidate, result
        if not codes:
            choice.note = f"the rules accept no preload from 0 to {MAX_PRELOAD} for pipeline loop {loop}"
            return PreloadChoice(None, choice.candidates, note=choice.note + "; keeping the kernel's own")
        problem = _simulate(source, path, kernels, codes, by_label, settings, choice, loop, results)
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


def _simulate(source, path, kernels, codes, by_label, settings: Auto, choice: PreloadChoice, loop: int,
              results: dict[str, TranspileResult]) -> str:
    """Cycles and verdicts of every candidate, summed over the pipelined kernels, and the
    bound of pipeline loop `loop` (in the first kernel that has it); a message when the
    emulator cannot run the serial kernel. A candidate's code is named as what it is (it is
    written nowhere), each of its lines with the input line or the sync it comes from."""
    for c in by_label.values():
        c.cycles = 0
    serial_total = 0
    names = {label: f"<{path} pipelined at {label}>" for label in codes}
    for kernel in kernels:
        report = in_child(sim_runtime.verify, source, codes, kernel.name, path=path, seed=settings.seed,
                          block_dim=settings.block_dim, shapes=dict(settings.shapes),
                          scalars=dict(settings.scalars), generated_paths=names)
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
                    detail = annotate_locations(row.message, names[label], LineOrigins(results[label]).note)
                    c.verdict, c.detail, c.cycles = row.verdict, detail, None
            elif c.cycles is not None and row.cycles is not None:  # a run that ends "ok" has its cycles
                c.cycles += row.cycles
                if not c.bound and row.run is not None and loop < len(kernel.loops):
                    indexes, fns = next(g for g in loop_groups(kernel) if loop in g[0])
                    bound = loop_bound(row.run.timeline, list(row.run.cores), set(fns))
                    together = f" (loops {', '.join(map(str, indexes))} together: they call the same stage " \
                        "functions)" if len(indexes) > 1 else ""
                    c.bound = bound.summary() + together if bound is not None else ""
    choice.serial_cycles = serial_total
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
        value = loop_preload(kernel.preload.values or (DEFAULT_PRELOAD,), loop)
        out.append(DEFAULT_PRELOAD if value is None else value)
    return out


def _override(values: list[int]) -> Override:
    return values[0] if len(values) == 1 else tuple(values)
