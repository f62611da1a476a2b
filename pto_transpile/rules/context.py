"""What a rule's `check` is given, per phase: the file, a kernel, or one pipeline loop.

Each context holds what its phase knows, and nothing twice: a loop's accesses, schedule and
sync graph live on its LoopResult (what `transpile()` returns), which the loop context reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from pto_transpile.read.model import Access, Kernel, PipelineLoop
from pto_transpile.read.reader import FileModel
from pto_transpile.read.source import SourceFile
from pto_transpile.results import LoopResult
from pto_transpile.sync.graph import SyncGraph
from pto_transpile.sync.schedule import Schedule


@dataclass
class FileContext:
    """The "file" phase: the whole file, before any kernel is analysed."""

    file: FileModel

    @property
    def source(self) -> SourceFile:
        return self.file.source

    @property
    def anchor(self) -> cst.CSTNode:
        """Where a rule that crashes in this context is reported."""
        return self.file.source.module


@dataclass
class KernelContext(FileContext):
    """The "kernel" phase: one kernel, its stage accesses scanned."""

    kernel: Kernel
    preloads: tuple  #: the preload values in force (CLI or decorator), unvalidated
    loop_results: list[LoopResult]  #: one per pipeline loop of the kernel, in order
    #: what rule helpers compute once per context (once per kernel, and once per loop)
    memo: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    @property
    def anchor(self) -> cst.CSTNode:
        return self.kernel.node.name


@dataclass
class LoopContext(KernelContext):
    """The "loop" phase (one pipeline loop, scheduled) and then the "graph" phase (its sync
    graph built): the loop's state is read from `result` as the analysis fills it in."""

    loop: PipelineLoop
    result: LoopResult

    @classmethod
    def of(cls, kernel: KernelContext, loop: PipelineLoop, result: LoopResult) -> LoopContext:
        return cls(kernel.file, kernel.kernel, kernel.preloads, kernel.loop_results, loop, result)

    @property
    def accesses(self) -> list[list[Access]]:
        """Per stage of the loop, its accesses to the synchronised buffers."""
        return self.result.accesses

    @property
    def schedule(self) -> Schedule:
        assert self.result.schedule is not None, "the loop phase runs on a scheduled loop"
        return self.result.schedule

    @property
    def graph(self) -> SyncGraph:
        assert self.result.graph is not None, "only graph-phase rules read the sync graph"
        return self.result.graph
