"""Cross-core event counters and barriers.

The set side only increments the receiver's per-sender counter; the wait's mode decides
whether it needs one set from every sender (INTRA_BLOCK on the AIC: both AIVs) or from any
(UNICAST_BLOCK). Counters are FIFO queues of set records so that a wait knows when the set
it consumes happened (timing) and which clock it carries (happens-before).
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, replace

import numpy as np

from pto_api import CROSS_CORE_SYNC_MODES
from pto_api.effects import COUNTER_DEPTH as MAX_OUTSTANDING
from pto_api.effects import after_sets
from sim_runtime.errors import EventOverflowError, KernelError, Location

INTER_BLOCK, INTER_SUBBLOCK, INTRA_BLOCK, UNICAST_BLOCK = (
    CROSS_CORE_SYNC_MODES[m] for m in ("INTER_BLOCK", "INTER_SUBBLOCK", "INTRA_BLOCK", "UNICAST_BLOCK"))
MODE_NAMES = {v: k for k, v in CROSS_CORE_SYNC_MODES.items()}


@dataclass
class SetRecord:
    time: int
    clock: np.ndarray
    where: Location | None
    pipe: str
    span: int = -1  #: timeline id of the set, so the wait it releases can point back at it


class Counters:
    """All flag counters of a launch: key = (receiver index, sender index, event id)."""

    def __init__(self, machine):
        self.m = machine
        self.queues: dict[tuple, deque] = defaultdict(deque)
        self.debts: dict[tuple, int] = defaultdict(int)  # sequential mode: waits before sets
        #: per counter: the clocks of every set raised into it, per pipe, and the waits taken
        self.raised: dict[tuple, dict[str, list[np.ndarray]]] = defaultdict(lambda: defaultdict(list))
        self.taken: dict[tuple, int] = defaultdict(int)

    # -- who receives / whom a wait needs ---------------------------------------------------
    def _receivers(self, core, mode: int) -> list:
        m = self.m
        if mode == INTER_BLOCK:
            return [c for c in m.cores if c.kind == core.kind]
        if mode == INTER_SUBBLOCK:
            return [m.other_aiv(core)]
        if core.kind == "aic":
            return m.aivs_of(core.block)
        return [m.aic_of(core)]

    def _senders(self, core, mode: int) -> list:
        return self._receivers(core, mode)  # the relation is symmetric

    def set(self, core, eid: int, mode: int, rec: SetRecord) -> None:
        for r in self._receivers(core, mode):
            key = (r.index, core.index, eid)
            if self.debts[key] > 0:
                self.debts[key] -= 1
                continue
            q = self.queues[key]
            q.append(rec)
            self.raised[key][rec.pipe].append(rec.clock)
            if len(q) > MAX_OUTSTANDING:
                raise EventOverflowError(
                    f"event {eid}: {len(q)} outstanding sets from {core.name} to {r.name} "
                    f"(hardware counters hold at most {MAX_OUTSTANDING})", rec.where)

    def wait_keys(self, core, eid: int, mode: int) -> tuple[list[tuple], bool]:
        """Counters this wait consumes from, and whether it needs all of them (else any)."""
        keys = [(core.index, s.index, eid) for s in self._senders(core, mode)]
        need_all = not (mode == UNICAST_BLOCK and core.kind == "aic")
        return keys, need_all

    def ready(self, keys, need_all) -> bool:
        have = [bool(self.queues[k]) for k in keys]
        return all(have) if need_all else any(have)

    def ready_time(self, keys, need_all) -> int:
        heads = [self.queues[k][0].time for k in keys if self.queues[k]]
        if not heads:
            return 0
        return max(heads) if need_all else min(heads)

    def consume(self, keys, need_all, *, allow_debt: bool) -> list[SetRecord]:
        """Pop the sets this wait consumes (sequential mode: owe the missing ones)."""
        if not need_all:
            avail = [k for k in keys if self.queues[k]]
            if avail:
                keys = [min(avail, key=lambda k: self.queues[k][0].time)]
            else:
                keys = keys[:1]
        out = []
        for k in keys:
            if self.queues[k]:
                rec = self.queues[k].popleft()
                self.taken[k] += 1
                out.append(replace(rec, clock=self._known(k)) if len(self.raised[k]) > 1 else rec)
            elif allow_debt:
                self.debts[k] += 1
            else:
                raise KernelError(f"internal: consuming an empty counter {k}")
        return out

    def _known(self, key: tuple) -> np.ndarray:
        """What this wait may rely on when sets from several pipes feed the counter: they
        complete in their pipe's order only (`pto_api.effects.after_sets`), not as issued."""
        raised = self.raised[key]
        totals = {p: len(vcs) for p, vcs in raised.items()}
        zero = np.zeros_like(next(iter(raised.values()))[0])
        return after_sets(self.taken[key], totals, lambda p, a: raised[p][a - 1] if a else zero,
                          np.maximum, np.minimum, zero)

    # -- reports ----------------------------------------------------------------------------
    def describe(self) -> list[str]:
        names = {c.index: c.name for c in self.m.cores}
        lines = []
        for (r, s, e), q in sorted(self.queues.items()):
            if q:
                srcs = ", ".join(sorted({str(x.where) for x in q}))
                lines.append(f"event {e}: {len(q)} pending set(s) {names[s]} -> {names[r]} (raised at {srcs})")
        for (r, s, e), d in sorted(self.debts.items()):
            if d:
                lines.append(f"event {e}: {names[r]} waited {d} time(s) with no matching set from {names[s]}")
        return lines

    def unbalanced(self) -> bool:
        return any(self.queues.values()) or any(self.debts.values())
