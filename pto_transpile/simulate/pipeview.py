"""What one simulated kernel looks like per pipeline loop: its runs and each loop's bound.

`--simulate` prints the bounds, `--gantt` draws the runs in the terminal, `--report` writes
them as HTML; all three read this one view. A loop is the set of its stage functions (the
emulator names the stage of every op), so a kernel with two pipeline loops gets a bound
for each, or one for both where they call the same stage functions (`loop_groups`).
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
    #: the pipeline loops this view stands for: several where they call the same stage functions,
    #: whose runs the emulator tells apart by function alone
    indexes: tuple[int, ...] = ()

    @property
    def title(self) -> str:
        together = self.indexes if len(self.indexes) > 1 else ()
        head = (f"pipeline loops {', '.join(map(str, together[:-1]))} and {together[-1]}" if together
                else f"pipeline loop {self.index}")
        fns = f" ({', '.join(self.stage_fns)})" if self.stage_fns else ""
        return head + fns + (", together: they call the same stage functions" if together else "")


def loop_groups(kernel) -> list[tuple[tuple[int, ...], list[str]]]:
    """The kernel's pipeline loops as the emulator's runs tell them apart: by the stage functions
    they call (each op is named by its stage's function), loops that share one taken together
    (probe ux2: two loops calling `mm_stage` and `act_stage` each got the figures of both), each
    group with its loops' indexes and its functions in call order."""
    groups: list[tuple[list[int], list[str]]] = []
    for index, loop in enumerate(kernel.loops):
        fns = [s.func for s in loop.stages]
        joined = [g for g in groups if set(g[1]) & set(fns)]
        merged = ([i for g in joined for i in g[0]] + [index],
                  list(dict.fromkeys([f for g in joined for f in g[1]] + fns)))
        groups = [g for g in groups if g not in joined] + [merged]
    return sorted(((tuple(sorted(i)), f) for i, f in groups), key=lambda g: g[0]) or [((0,), [])]


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
    serial, pipelined = view.run("serial"), view.run(label)
    for indexes, fns in loop_groups(kernel):
        loop = LoopView(indexes[0], fns, indexes=indexes)
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
