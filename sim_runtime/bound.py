"""How close a pipeline loop runs to what its slower core allows, read off one simulated run.

A pipelined loop of N iterations can finish no sooner than its busiest core can do N
iterations' work: the bound is `N x beat + fill + drain`, where the beat is that core's
busy time per iteration (cycles in which at least one of its pipes works on the loop's
stages, over N), the fill is the time before it starts (it waits for its first input) and
the drain the time after it is done (the other cores finish the last iterations). The run
reaches the bound exactly when the bounding core never idles between its first and last
op; every idle gap it has in between is time lost, and is listed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sim_runtime.timeline import Span, Timeline, union_length

#: What to call the bounding core.
CORE_KIND = {"AIC": "cube", "AIV": "vector"}


@dataclass
class CoreLoad:
    core: str
    busy: int  #: cycles in which the core works on the loop
    pipes: dict[str, int]  #: busy cycles of each of its pipes
    first: int  #: start of its first op in the loop
    last: int  #: end of its last op in the loop
    #: the iterations it runs: a block of a per-core range runs its share of them (study ux2: a
    #: block of one tile was divided by block 0's two)
    iterations: int = 0

    @property
    def busiest_pipe(self) -> str:
        return max(self.pipes, key=lambda p: (self.pipes[p], p)) if self.pipes else ""

    @property
    def kind(self) -> str:
        return CORE_KIND.get(self.core.rsplit(".", 1)[-1].rstrip("01"), "core")


@dataclass
class LoopBound:
    iterations: int
    start: int  #: the loop's first op starts
    end: int  #: the loop's last op ends
    cores: list[CoreLoad]
    gaps: list[tuple[int, int]] = field(default_factory=list)  #: the bounding core's idle gaps

    @property
    def bounding(self) -> CoreLoad:
        return max(self.cores, key=lambda c: (c.busy, -self.cores.index(c)))

    @property
    def beat(self) -> float:
        return self.per_iteration(self.bounding)

    @property
    def fill(self) -> int:
        return self.bounding.first - self.start

    @property
    def drain(self) -> int:
        return self.end - self.bounding.last

    @property
    def bound(self) -> int:
        """N x beat + fill + drain."""
        return self.bounding.busy + self.fill + self.drain

    @property
    def actual(self) -> int:
        return self.end - self.start

    @property
    def percent(self) -> float:
        return 100.0 * self.bound / self.actual if self.actual else 100.0

    def idle_percent(self, core: CoreLoad) -> float:
        return 100.0 * (1 - core.busy / self.actual) if self.actual else 0.0

    def per_iteration(self, core: CoreLoad) -> float:
        runs = core.iterations or self.iterations
        return core.busy / runs if runs else 0.0

    def _runs(self, core: CoreLoad) -> str:
        """How many iterations `core` runs, said where it is fewer than the loop's most."""
        return f" over its {core.iterations} iteration(s)" if 0 < core.iterations < self.iterations else ""

    def summary(self) -> str:
        """One line: "cube-bound (b0.AIC, busiest pipe M), 91% of the bound; b0.AIV0 idles 22%"."""
        b = self.bounding
        others = "; ".join(f"{c.core} idles {self.idle_percent(c):.0f}%" for c in self.cores if c is not b)
        return (f"{b.kind}-bound ({b.core}, busiest pipe {b.busiest_pipe}), {self.percent:.0f}% of the bound"
                + (f"; {others}" if others else ""))

    def detail(self) -> list[str]:
        """The numbers behind the summary, one line each."""
        def pipes(c: CoreLoad) -> str:
            runs = c.iterations or self.iterations
            return ", ".join(f"{p} {n / runs:.0f}" for p, n in sorted(c.pipes.items()))

        lines = [f"{c.core}: busy {self.per_iteration(c):.0f} cycles per iteration ({pipes(c)}){self._runs(c)}, "
                 f"idle {self.idle_percent(c):.0f}% of the loop" for c in self.cores]
        lost = sum(b - a for a, b in self.gaps)
        runs = self.bounding.iterations or self.iterations
        lines.append(f"bound = {runs} x {self.beat:.0f} (beat of {self.bounding.core}) + fill {self.fill} "
                     f"+ drain {self.drain} = {self.bound} cycles; the loop took {self.actual} "
                     f"({self.percent:.0f}% of the bound); {self.bounding.core} idles {lost} cycles in "
                     f"{len(self.gaps)} gap(s) between its first and last op")
        return lines


def loop_bound(timeline: Timeline, cores: list[str], stage_fns: set[str] | None = None) -> LoopBound | None:
    """The bound of the loop made of the stages `stage_fns` (every stage when None); None when
    the run has no op in such a stage."""
    ops = [s for s in timeline.spans if s.kind == "op" and s.stage is not None
           and (stage_fns is None or s.stage_fn in stage_fns)]
    stages = [s for s in timeline.stages if stage_fns is None or s.name in stage_fns]
    if not ops:
        return None
    by_core: dict[str, list[Span]] = defaultdict(list)
    for s in ops:
        by_core[s.core].append(s)
    loads = []
    for core in [c for c in cores if c in by_core]:
        mine = by_core[core]
        pipes: dict[str, list] = defaultdict(list)
        for s in mine:
            pipes[s.pipe].append((s.start, s.end))
        tasks = [s.task for s in stages if s.core == core and s.task is not None]
        loads.append(CoreLoad(core, union_length((s.start, s.end) for s in mine),
                              {p: union_length(iv) for p, iv in pipes.items()},
                              min(s.start for s in mine), max(s.end for s in mine), max(tasks, default=-1) + 1))
    iterations = max(s.task for s in stages if s.task is not None) + 1
    result = LoopBound(iterations, min(s.start for s in ops), max(s.end for s in ops), loads)
    result.gaps = idle_gaps([(s.start, s.end) for s in by_core[result.bounding.core]])
    return result


def idle_gaps(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The stretches between the first start and the last end that no interval covers."""
    gaps, reach = [], None
    for a, b in sorted(intervals):
        if reach is not None and a > reach:
            gaps.append((reach, a))
        reach = b if reach is None else max(reach, b)
    return gaps
