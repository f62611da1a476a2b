"""What `transpile()` returns: the generated file, the diagnostics and what was computed per loop."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from pto_transpile.diagnostics import Diagnostic, Severity
from pto_transpile.preload import PreloadChoice
from pto_transpile.read.model import Access
from pto_transpile.read.source import SourceFile
from pto_transpile.sync.ctxring import CtxPlan
from pto_transpile.sync.graph import SyncGraph
from pto_transpile.sync.plan import Plan
from pto_transpile.sync.schedule import Schedule


@dataclass
class LoopResult:
    """Everything computed for one pipeline loop (for tests, provenance and the emulator).

    The one place a loop's state is kept: the rules judging the loop read it through their
    LoopContext, and each analysis step fills in its part."""

    kernel: str  #: the name of the kernel holding the loop
    index: int
    node: cst.For  #: the pipeline loop (positions are computed only when asked)
    schedule: Schedule | None = None
    accesses: list[list[Access]] = field(default_factory=list)
    graph: SyncGraph | None = None
    plan: Plan | None = None
    ctx: CtxPlan | None = None


@dataclass
class TranspileResult:
    path: str
    code: str | None  #: the generated file, None when errors were found
    diagnostics: list[Diagnostic]  #: what `select`/`ignore` let through
    loops: list[LoopResult] = field(default_factory=list)
    source: SourceFile | None = None  #: the parsed input (for positions of what the loops hold)
    hidden: list[Diagnostic] = field(default_factory=list)  #: found, but filtered out by `select`/`ignore`
    preload_choice: PreloadChoice | None = None  #: with `--preload auto`: the candidates and the choice
    #: kernels marked `PipelineConfig(sync_only=True)` that the preload override pipelined anyway
    sync_only_overridden: list[str] = field(default_factory=list)
    #: (kernel, its own preloads) of the kernels the preload given (`--preload`, pyproject.toml)
    #: ran at other preloads than their `PipelineConfig` says: a report of errors names where the
    #: preload came from (study ux3: "at preload 7" of a kernel that says 1)
    preload_overridden: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No error at all, shown or hidden: filters never make an erroneous kernel acceptable."""
        return not any(d.is_error for d in self.diagnostics + self.hidden)

    @property
    def hidden_errors(self) -> int:
        return sum(1 for d in self.hidden if d.is_error)


def warnings_as_errors(result: TranspileResult) -> TranspileResult:
    """`result` with each warning it shows reported as an error (`--warnings-as-errors`), which
    keeps its file's output from being written, as any error does; a hidden one stays hidden."""
    if not any(d.severity is Severity.WARNING for d in result.diagnostics):
        return result
    shown = [replace(d, severity=Severity.ERROR, message=f"{d.message} [--warnings-as-errors]")
             if d.severity is Severity.WARNING else d for d in result.diagnostics]
    return replace(result, code=None, diagnostics=shown)
