"""What one simulated kernel looks like per pipeline loop: its runs and each loop's bound.

`--simulate` prints the bounds, `--gantt` draws the runs in the terminal, `--report` writes
them as HTML; all three read this one view. A loop is the set of its stage functions (the
emulator names the stage of every op), so a kernel with two pipeline loops gets a bound
for each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim_runtime.bound import LoopBound, loop_bound
from sim_runtime.verify import VerifyReport


@dataclass
class LoopView:
    index: int
    stage_fns: list[str]  #: the loop's stage functions in call order (empty: every stage of the kernel)
    serial: LoopBound | None = None
    pipelined: LoopBound | None = None

    @property
    def title(self) -> str:
        return f"pipeline loop {self.index}" + (f" ({', '.join(self.stage_fns)})" if self.stage_fns else "")


@dataclass
class KernelView:
    name: str
    label: str  #: the version compared with the serial run ("pipelined", or "as written")
    report: VerifyReport
    loops: list[LoopView] = field(default_factory=list)

    def run(self, version: str):
        """The SimResult of `version` ("serial" or the label), None when it did not finish."""
        row = next((r for r in self.report.rows if r.version == version), None)
        return row.run if row is not None else None


def kernel_view(kernel, report, label: str) -> KernelView:
    """The view of `kernel` (the transpiler's model of it) from its verification `report`."""
    view = KernelView(kernel.name, label, report)
    loops = [[s.func for s in loop.stages] for loop in kernel.loops] or [[]]
    serial, pipelined = view.run("serial"), view.run(label)
    for index, fns in enumerate(loops):
        loop = LoopView(index, fns)
        wanted = set(fns) or None
        if serial is not None:
            loop.serial = loop_bound(serial.timeline, list(serial.cores), wanted)
        if pipelined is not None:
            loop.pipelined = loop_bound(pipelined.timeline, list(pipelined.cores), wanted)
        view.loops.append(loop)
    return view


def bound_lines(view: KernelView) -> list[str]:
    """What `--simulate` prints under its table: per loop, the summary and its numbers."""
    out = []
    for loop in view.loops:
        if loop.pipelined is None:
            continue
        out.append(f"{loop.title}, {view.label}: {loop.pipelined.summary()}")
        out += [f"  {line}" for line in loop.pipelined.detail()]
    return out
