"""Pipe-aware happens-before race detection.

On hardware a core issues ops in program order into per-pipe queues that run
asynchronously, so program order is not completion order. Each (core, pipe) therefore gets
its own vector-clock component. An op on (c, P) happens after the previous op on (c, P), the
waits executed on (c, P) or on c's scalar pipe (what such a wait acquired: c's later work is
issued only once it has passed), and every earlier op of c that touched one of its auto_mutex ids.
A set on (c, P) carries (c, P)'s clock; the wait consuming it joins that clock into the
waiting pipe. Accesses are checked FastTrack-style: each record keeps only its own epoch,
and records made redundant by a later ordered write (or a covering read of the same pipe)
are pruned, so the history stays small; what remains is bucketed by 4 KB address page.
Two atomic stores of one class (`pto_api.effects.atomic_class`: the same reduction and element
type) never race: GM applies each as one read-modify-write, in either order.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from pto_api import BAR_ALL_PIPES, PIPES, SCALAR_PIPE
from sim_runtime.errors import Location, RaceError
from sim_runtime.memory import Footprint

PIPE_INDEX = {p: i for i, p in enumerate(PIPES)}
#: History is bucketed by address page so a check only visits nearby records.
PAGE = 4096


class CoreLike(Protocol):
    """What race checks and reports read of a core (`machine.Core`, a layer above, is one)."""

    index: int
    name: str
    kind: str
    block: int


@dataclass
class Access:
    """One memory access of one op, as the race report prints it."""

    fp: Footprint
    kind: str  # "R" or "W"
    core: CoreLike
    pipe: str = ""
    comp: int = 0
    epoch: int = 0
    op: str = ""
    where: Location | None = None
    stage: str = ""
    data: bytes | None = None
    mem_label: str = ""
    atomic: tuple[str, str] | None = None  #: (reduction, dtype) of an atomic store

    def line(self) -> str:
        what = "write" if self.kind == "W" else "read "
        if self.atomic:
            what += f" (atomic {self.atomic[0]} of {self.atomic[1]})"
        stage = f" in {self.stage}" if self.stage else " outside any stage"
        return f"{what} by {self.core.name} on pipe {self.pipe}: {self.op}{stage} at {self.where}"

    def conflicts(self, other: Access) -> bool:
        """Whether the two race when unordered: one writes, and they are not atomic stores of one
        class (those GM applies one at a time, in either order)."""
        return "W" in (self.kind, other.kind) and (self.atomic is None or self.atomic != other.atomic)

    def supersedes(self, old: Access) -> bool:
        """Whether every later access that races with `old` (ordered before `self`, within its
        bytes) also races with `self`, so `old` need not be kept: a write, or a read of the same
        pipe after a read; an atomic store only supersedes accesses of its own class, since one
        of that class races with everything else but not with it."""
        kinds = self.kind == "W" or (old.kind == "R" and old.comp == self.comp)
        return kinds and (self.atomic is None or self.atomic == old.atomic)


class RaceDetector:
    def __init__(self, cores, notes: list[str]):
        self.cores = cores
        self.notes = notes
        self.width = len(cores) * len(PIPES)
        self.pipe_clock = [[np.zeros(self.width, np.int64) for _ in PIPES] for _ in cores]
        self.mutex_clock: list[dict[int, np.ndarray]] = [{} for _ in cores]
        self.local_flags: dict[tuple, list[tuple[np.ndarray, Location | None]]] = defaultdict(list)
        self.history: dict[tuple, dict[int, list[Access]]] = defaultdict(dict)

    def comp(self, core, pipe: str) -> int:
        return core.index * len(PIPES) + PIPE_INDEX[pipe]

    # -- clocks ----------------------------------------------------------------------------
    def op_clock(self, core, pipe: str, mutex_ids) -> tuple[np.ndarray, int, int]:
        """Advance (core, pipe) for a new op; return its clock, component and epoch."""
        p = PIPE_INDEX[pipe]
        vc = self.pipe_clock[core.index][p].copy()
        mclock = self.mutex_clock[core.index]
        for m in mutex_ids:
            if m in mclock:
                np.maximum(vc, mclock[m], out=vc)
        c = self.comp(core, pipe)
        vc[c] += 1
        self.pipe_clock[core.index][p] = vc
        for m in mutex_ids:
            mclock[m] = vc
        return vc, c, int(vc[c])

    def release_clock(self, core, pipe: str) -> np.ndarray:
        """What a set raised on (core, pipe) carries: everything issued on that pipe so far."""
        return self.pipe_clock[core.index][PIPE_INDEX[pipe]].copy()

    def acquire(self, core, pipe: str, clocks, holds_issue: bool = False) -> None:
        """A wait on (core, pipe) consumed sets carrying `clocks`. A wait that `holds_issue` on the
        scalar pipe (a cross-core wait, a `sync_dst`) stalls the issue of all the core's later work,
        so every pipe follows what it acquired (not the scalar pipe's own earlier work: a scalar
        store needs a flag of its own before a DMA reads it)."""
        got = np.zeros(self.width, np.int64)
        for vc in clocks:
            np.maximum(got, vc, out=got)
        mine = self.pipe_clock[core.index]
        if holds_issue and pipe == SCALAR_PIPE:
            self.pipe_clock[core.index] = [np.maximum(vc, got) for vc in mine]
        else:
            mine[PIPE_INDEX[pipe]] = np.maximum(mine[PIPE_INDEX[pipe]], got)

    def join_all(self, cores) -> None:
        """Barrier (sync_all, sequential section boundary): everyone after everything."""
        joined = np.zeros(self.width, np.int64)
        for c in cores:
            for vc in self.pipe_clock[c.index]:
                np.maximum(joined, vc, out=joined)
        for c in cores:
            self.pipe_clock[c.index] = [joined.copy() for _ in PIPES]

    def join_core(self, core) -> None:
        """bar_all: every pipe of the core after all of its pipes but the scalar one (PyPTO's
        barrier waits for V, M, MTE1, MTE2, MTE3 and FIX; a scalar store needs a flag of its own)."""
        joined = np.zeros(self.width, np.int64)
        for p, vc in zip(PIPES, self.pipe_clock[core.index], strict=True):
            if p in BAR_ALL_PIPES:
                np.maximum(joined, vc, out=joined)
        self.pipe_clock[core.index] = [np.maximum(vc, joined) for vc in self.pipe_clock[core.index]]

    def mutex_lock(self, core, pipe: str, mid: int) -> None:
        if mid in self.mutex_clock[core.index]:
            self.acquire(core, pipe, [self.mutex_clock[core.index][mid]])

    def mutex_unlock(self, core, pipe: str, mid: int) -> None:
        prev = self.mutex_clock[core.index].get(mid)
        vc = self.release_clock(core, pipe)
        self.mutex_clock[core.index][mid] = vc if prev is None else np.maximum(prev, vc)

    def sync_src(self, core, set_pipe: str, wait_pipe: str, eid: int, where=None) -> None:
        self.local_flags[(core.index, set_pipe, wait_pipe, eid)].append((self.release_clock(core, set_pipe), where))

    def sync_dst(self, core, set_pipe: str, wait_pipe: str, eid: int) -> bool:
        """Consume the oldest matching flag (flags count, see `assumed`); False if none."""
        q = self.local_flags[(core.index, set_pipe, wait_pipe, eid)]
        if not q:
            return False
        self.acquire(core, wait_pipe, [q.pop(0)[0]], holds_issue=True)
        return True

    def pending_flags(self) -> list[str]:
        names = {c.index: c.name for c in self.cores}
        return [f"{names[c]}: sync_src(set_pipe={s}, wait_pipe={w}, event_id={e}) x{len(q)} (raised at "
                f"{', '.join(sorted({str(where) for _, where in q}))})"
                for (c, s, w, e), q in sorted(self.local_flags.items()) if q]

    # -- accesses --------------------------------------------------------------------------
    def _pages(self, fp: Footprint) -> range:
        return range(fp.base // PAGE, (fp.end - 1) // PAGE + 1) if fp.nbytes else range(0)

    def check(self, new: Access, vc: np.ndarray) -> None:
        """Race-check `new` against earlier overlapping accesses, then record it."""
        pages = self.history[new.fp.key]  # page number -> records touching that page
        seen: dict[int, Access] = {}
        for p in self._pages(new.fp):
            for old in pages.get(p, ()):
                seen[id(old)] = old
        dropped = []
        for old in seen.values():
            if not old.fp.overlaps(new.fp):
                continue
            ordered = vc[old.comp] >= old.epoch
            if not ordered and old.conflicts(new):
                if self._benign(old, new):
                    self.notes.append(
                        f"benign: {old.core.name} and {new.core.name} both wrote identical bytes "
                        f"({new.mem_label} {new.fp.describe()}) at {old.where} and {new.where}")
                    continue
                raise RaceError(self._message(old, new), new.where)
            if ordered and new.supersedes(old) and old.fp.within(new.fp):
                dropped.append(old)  # anything ordered after `new` is ordered after `old`
        for old in dropped:
            for p in self._pages(old.fp):
                pages[p] = [r for r in pages[p] if r is not old]
        for p in self._pages(new.fp):
            pages.setdefault(p, []).append(new)

    def live_records(self, key: tuple) -> int:
        return len({id(r) for recs in self.history[key].values() for r in recs})

    @staticmethod
    def _benign(old: Access, new: Access) -> bool:
        return (old.kind == new.kind == "W" and old.atomic is None and new.atomic is None and old.core is not new.core
                and old.core.kind == new.core.kind == "aiv" and old.core.block == new.core.block
                and old.fp == new.fp and old.data is not None and old.data == new.data)

    @staticmethod
    def _message(old: Access, new: Access) -> str:
        return (
            f"data race on {new.mem_label} ({new.fp.describe()}):\n"
            f"  earlier: {old.line()}\n"
            f"  later:   {new.line()}\n"
            "  neither happens before the other: no set_cross_core/wait_cross_core pair on these "
            "pipes, mutex or barrier orders them" + _ATOMIC_HINT * bool(old.atomic or new.atomic)
        )


_ATOMIC_HINT = ("\n  an atomic store commutes only with atomic stores of the same reduction and element type, "
                "not with plain stores or reads")
