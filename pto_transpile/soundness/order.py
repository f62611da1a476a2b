"""Order the events of one run and read off what every read sees.

Sequential runs (the serial kernel's meaning) take the events in program order. Concurrent
runs (the pipelined kernel's meaning on hardware) follow the same rules as the emulator's race
detector: each core issues ops in order into per-pipe queues, so an op on (core, pipe) is
ordered after earlier ops on that pipe, after the waits that pipe executed (every pipe after what
a wait on the scalar pipe acquired: it holds back the issue of the core's later work), and after earlier
ops of the core holding one of its auto_mutex ids; a set carries what its pipe has issued, the
wait that consumes it passes that on; a `sync_all` orders the cores of its type. A `phase=`
call waits for its Acc region's unit flag (`pto_api.sync.UNIT_FLAG`), followed in program
order on its core, and is ordered after the Final call that set it.

Both runs keep, per memory, the accesses not yet overwritten and answer, for every read, which
writes it may see ("reaching writes"). A concurrent run also reports races (two conflicting
accesses neither of which is ordered before the other), deadlock, sets that no wait consumes
and counters that overflow.
"""

from __future__ import annotations

import bisect
import heapq
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import count

from pto_api.effects import COUNTER_DEPTH, after_sets, barrier_kinds
from pto_api.ops import BAR_ALL_PIPES, PIPES, SCALAR_PIPE
from pto_api.sync import UNIT_FLAG_START
from pto_transpile.soundness.events import (
    AIC,
    AIV0,
    AIV1,
    CORE_KIND,
    CORES,
    INF,
    SET_RECEIVERS,
    WAIT_SENDERS,
    Event,
    Foot,
    Trace,
)

PIPE_INDEX = {p: i for i, p in enumerate(PIPES)}
NPIPES = len(PIPES)
SCALAR = PIPE_INDEX[SCALAR_PIPE]
#: the pipes `bar_all` waits for, by index
BAR_ALL = frozenset(PIPE_INDEX[p] for p in BAR_ALL_PIPES)
WIDTH = 3 * NPIPES
ZERO = (0,) * WIDTH

WriterId = tuple  #: (core, ident)
ReadId = tuple  #: (core, ident, index of the footprint among the op's reads)


def join(a: tuple, b: tuple) -> tuple:
    """The later of two vector clocks, part by part (compared inline: `max` is a call per part)."""
    return tuple([x if x > y else y for x, y in zip(a, b, strict=False)])


def meet(a: tuple, b: tuple) -> tuple:
    return tuple([x if x < y else y for x, y in zip(a, b, strict=False)])


class _Record:
    """An access not yet overwritten, at `pos` in the order of its memory's accesses: a piece
    cut out of one by a write takes its place (its position extended by the piece's number), as
    a list replaced in place would have it. `rect` is its rectangle, its cell in `_Store`."""

    __slots__ = ("foot", "write", "comp", "epoch", "event", "rect", "pos")

    def __init__(self, foot: Foot, write: bool, comp: int, epoch: int, event: Event, pos: tuple):
        self.foot, self.write, self.comp, self.epoch, self.event = foot, write, comp, epoch, event
        self.rect: tuple = foot[1:5]  #: (r0, r1, c0, c1): the fields after the key, in one slice
        self.pos = pos

    @property
    def writer(self) -> WriterId:
        return (self.event.core, self.event.ident)


def _pos(rec: _Record) -> tuple:
    return rec.pos


#: the most writers of one read whose order `_disjoint_in_canonical_order` settles (pairs: its square)
MAX_ORDERED_WRITERS = 64


def _disjoint_in_canonical_order(records: list[_Record]) -> list[WriterId]:
    """The writers a read sees, in an order that keeps only what the bytes show: two writes of
    parts that do not overlap leave the same contents in either order, so only overlapping ones
    keep their order, and the rest follow a canonical one (the smallest writer first whenever
    several may come next). A read of rows that several tasks' stores wrote, one row each, sees
    the same writes in the serial and the pipelined kernel though the cores interleave them
    differently; it was refused as seeing them in another order. Atomic stores keep their order
    here (`commuted` settles those); past `MAX_ORDERED_WRITERS`, all do."""
    writers = [r.writer for r in records]
    n = len(records)
    if n < 2 or n > MAX_ORDERED_WRITERS or any(r.foot.atomic for r in records):
        return writers
    before: list[set[int]] = [set() for _ in range(n)]  #: the earlier writes each must follow
    for j in range(n):
        b0, b1, d0, d1 = records[j].rect
        for i in range(j):
            a0, a1, c0, c1 = records[i].rect
            if a0 < b1 and b0 < a1 and c0 < d1 and d0 < c1:
                before[j].add(i)
    if all(len(before[j]) == j for j in range(n)):
        return writers  # every two overlap: the order they wrote is the only one
    keys = [_writer_key(w) for w in writers]
    ready = [(keys[j], j) for j in range(n) if not before[j]]
    heapq.heapify(ready)
    out: list[WriterId] = []
    done: set[int] = set()
    while ready:
        _, j = heapq.heappop(ready)
        out.append(writers[j])
        done.add(j)
        for m in range(n):
            if m not in done and j in before[m]:
                before[m].discard(j)
                if not before[m]:
                    heapq.heappush(ready, (keys[m], m))
    return out


def _writer_key(writer: WriterId) -> tuple:
    """A total order of writers the same in every run (their idents are)."""
    return (writer[0], repr(writer[1]))


class _Store:
    """The live records of one memory, by rectangle. A kernel touches few rectangles of a memory
    (its tiles, their parts) many times: each rectangle seen keeps the cells of the ones it
    overlaps, so an access looks at the records it meets, not at every record of its memory."""

    __slots__ = ("cells", "near")

    def __init__(self) -> None:
        self.cells: dict[tuple, list[_Record]] = {}  #: rectangle seen -> its live records, by `pos`
        self.near: dict[tuple, list[list[_Record]]] = {}  #: rectangle seen -> the cells it overlaps

    def meeting(self, rect: tuple) -> list[_Record]:
        """The live records overlapping `rect`, by position (a fresh list: the caller may edit)."""
        near = self.near.get(rect)
        if near is None:
            near = self._see(rect)
        if len(near) == 1:  # the common case: the rectangle is a tile met only whole
            return [*near[0]]
        found = [cell for cell in near if cell]
        if len(found) < 2:
            return [*found[0]] if found else []
        return sorted([rec for cell in found for rec in cell], key=_pos)

    def _see(self, rect: tuple) -> list[list[_Record]]:
        """A rectangle met for the first time: its cell, the cells it overlaps (its own unless
        it is empty: the overlap test is the one a scan of every record would make) and its cell
        among those of the rectangles it overlaps."""
        r0, r1, c0, c1 = rect
        cells = self.cells
        cell: list[_Record] = []
        cells[rect] = cell
        met = [q for q in cells if q[0] < r1 and r0 < q[1] and q[2] < c1 and c0 < q[3]]
        for q in met:
            if q != rect:
                self.near[q].append(cell)
        near = self.near[rect] = [cells[q] for q in met]
        return near

    def add(self, rec: _Record) -> None:
        """A new access: its position is after every record's."""
        cell = self.cells.get(rec.rect)
        if cell is None:
            self._see(rec.rect)
            cell = self.cells[rec.rect]
        cell.append(rec)

    def cut(self, rec: _Record, pieces: list[_Record]) -> None:
        """Drop `rec` for the parts of it that stay (`pieces`, at its position)."""
        self.cells[rec.rect].remove(rec)
        for piece in pieces:
            if piece.rect not in self.cells:
                self._see(piece.rect)
            bisect.insort(self.cells[piece.rect], piece, key=_pos)

    def discard(self, rec: _Record) -> None:
        """Drop `rec` if it is still there (a write may have dropped it already)."""
        cell = self.cells[rec.rect]
        if rec in cell:
            cell.remove(rec)

    def records(self) -> list[_Record]:
        """Every live record, by position."""
        return sorted([rec for cell in self.cells.values() for rec in cell], key=_pos)


@dataclass
class Race:
    earlier: Event
    later: Event
    earlier_foot: Foot
    later_foot: Foot


@dataclass
class Outcome:
    """What one run computed: reaching writes per read, final writers of GM, and problems."""

    reaching: dict[ReadId, tuple] = field(default_factory=dict)  #: in the order they wrote
    read_events: dict[ReadId, tuple[Event, Foot]] = field(default_factory=dict)
    writers: dict[WriterId, Event] = field(default_factory=dict)
    #: per GM tensor: what it holds at the end, as `contents` gives it (who wrote each part)
    final: dict[tuple, tuple] = field(default_factory=dict)
    races: list[Race] = field(default_factory=list)
    deadlock: list[Event] = field(default_factory=list)  #: the blocked event of each stuck core
    unbalanced: list[str] = field(default_factory=list)
    overflow: list[Event] = field(default_factory=list)
    #: writer -> the reduction of its atomic store, for the writers that made one (`commuted`)
    atomic: dict[WriterId, str] = field(default_factory=dict)
    #: (core, Acc region) -> the unit flag's value, the clock its setter released, its setter (None: none)
    unit_flags: dict[tuple, tuple] = field(default_factory=dict)


class _Memory:
    """Accesses per memory that later ones must be checked against, pruned as writes cover them."""

    def __init__(self, outcome: Outcome, concurrent: bool, twins_race: bool = False):
        self.by_key: dict[tuple, _Store] = defaultdict(_Store)
        self.outcome = outcome
        self.concurrent = concurrent
        self.twins_race = twins_race
        self.last_read: dict[tuple, _Record] = {}  #: (foot, pipe) -> the latest read record
        self.made = count()  #: the position of the next new record

    def access(self, ev: Event, vc: tuple, comp: int) -> None:
        epoch = vc[comp]
        for i, foot in enumerate(ev.reads):
            self._read(ev, i, foot, vc)
        for foot in ev.writes:
            self._write(ev, foot, vc, comp, epoch)
        if self.concurrent:  # a sequential run has no races: reads are checked against nothing
            for foot in ev.reads:
                rec = _Record(foot, False, comp, epoch, ev, (next(self.made),))
                store = self.by_key[foot.key]
                store.add(rec)
                if not self.twins_race:
                    # a read superseded by a later read of the same bytes on the same pipe: every
                    # access that races with it races with the later one too, so it is dropped
                    before = self.last_read.get((foot, comp))
                    if before is not None and before.epoch <= epoch:
                        store.discard(before)
                    self.last_read[(foot, comp)] = rec
        if ev.writes:
            self.outcome.writers[(ev.core, ev.ident)] = ev

    def _ordered(self, rec: _Record, ev: Event, vc: tuple) -> bool:
        if _twins(rec.event, ev):
            return False
        return not self.concurrent or vc[rec.comp] >= rec.epoch

    def _conflicts(self, rec: _Record, ev: Event, foot: Foot, vc: tuple) -> None:
        """Report a race of a concurrent run's access with an earlier one it overlaps. Most are
        ordered after it, and only twins race then (when `twins_race`): that is tested first."""
        if vc[rec.comp] >= rec.epoch and not self.twins_race or rec.foot.commutes(foot):
            return
        if not _twins(rec.event, ev):
            if vc[rec.comp] < rec.epoch:
                self.outcome.races.append(Race(rec.event, ev, rec.foot, foot))
        elif self.twins_race:
            # nothing orders the two vector cores' copies of one op: different bytes race; the
            # same bytes are harmless only if both write the same values, which the check
            # cannot know (a `may` race: undecided)
            same = rec.foot.region == foot.region
            self.outcome.races.append(Race(rec.event, ev, rec.foot._replace(may=rec.foot.may or same),
                                           foot._replace(may=foot.may or same)))

    def _read(self, ev: Event, index: int, foot: Foot, vc: tuple) -> None:
        rect = foot[1:5]
        writes = [r for r in self.by_key[foot.key].meeting(rect) if r.write]
        if self.concurrent:
            ordered_only = not self.twins_race  # (`_conflicts`'s first test, made here without a call)
            for r in writes:
                if not (ordered_only and vc[r.comp] >= r.epoch):
                    self._conflicts(r, ev, foot, vc)
        if foot.atomic:  # what an atomic store adds to: the writes below the stores it commutes with
            writes = [r for r in writes if not r.foot.commutes(foot)]
        rid = (ev.core, ev.ident, index)
        # one write (the common case) hides nothing, and is in canonical order
        self.outcome.reaching[rid] = (commuted(self._seen(writes, *rect), self.outcome.atomic) if len(writes) > 1
                                      else tuple([(w.event.core, w.event.ident) for w in writes]))
        self.outcome.read_events[rid] = (ev, foot)

    @staticmethod
    def _seen(writes: list[_Record], r0: int, r1: int, c0: int, c1: int) -> list[WriterId]:
        """The writers of `writes` (in order) whose part of the read rectangle no later write
        of them covers."""
        # the writes that overwrite what they cover, by position: only they can hide an earlier one
        covers = [(pos, w.foot) for pos, w in enumerate(writes) if not (w.foot.may or w.foot.window or w.foot.atomic)]
        seen = []
        k = 0  # covers[k:] come after the write at `pos`
        for pos, r in enumerate(writes):
            while k < len(covers) and covers[k][0] <= pos:
                k += 1
            if k < len(covers):  # the part this read sees of it, overwritten later?
                q0, q1, p0, p1 = r.rect
                a0, a1 = (q0 if q0 > r0 else r0), (q1 if q1 < r1 else r1)
                b0, b1 = (p0 if p0 > c0 else c0), (p1 if p1 < c1 else c1)
                if any(w.r0 <= a0 and a1 <= w.r1 and w.c0 <= b0 and b1 <= w.c1 for _, w in covers[k:]):
                    continue
            seen.append(r)
        return _disjoint_in_canonical_order(seen)

    def _write(self, ev: Event, foot: Foot, vc: tuple, comp: int, epoch: int) -> None:
        """Check the write against what it overlaps and drop what it overwrites, keeping the
        parts it does not cover in their place."""
        store = self.by_key[foot.key]
        r0, r1, c0, c1 = rect = foot[1:5]
        definite = not (foot.may or foot.window or foot.atomic)  # an atomic store adds to what it meets
        gm = foot.key[0] == "GM"
        concurrent = self.concurrent
        ordered_only = not self.twins_race  # (`_conflicts`'s first test, made here without a call)
        for r in store.meeting(rect):
            if concurrent and not (ordered_only and vc[r.comp] >= r.epoch):
                self._conflicts(r, ev, foot, vc)
            if not definite:
                continue
            q0, q1, p0, p1 = r.rect
            covered = r0 <= q0 and q1 <= r1 and c0 <= p0 and p1 <= c1
            split = (not r.write or gm) and not self.twins_race
            if (covered or split) and self._ordered(r, ev, vc):
                # overwritten after it: a later access that would race with the covered part
                # races with this write, or is ordered after both; keep what is not covered
                # (a tile read whole and written back in quarters by two cores). A GM write
                # keeps exactly the part it still holds: what the kernel leaves there
                store.cut(r, [] if covered else [_Record(piece, r.write, r.comp, r.epoch, r.event, (*r.pos, i))
                                                 for i, piece in enumerate(_outside(r.foot, foot))])
        store.add(_Record(foot, True, comp, epoch, ev, (next(self.made),)))
        if foot.atomic:
            self.outcome.atomic[(ev.core, ev.ident)] = foot.atomic

    def finish(self) -> None:
        for key, store in self.by_key.items():
            if key[0] == "GM":
                self.outcome.final[key] = contents([(*r.rect, r.writer) for r in store.records() if r.write],
                                                   self.outcome.atomic)


def commuted(writers, atomic: dict) -> tuple:
    """`writers` (in the order they wrote) with each run of adjacent atomic stores of one class
    (`atomic`: writer -> its reduction) in one canonical order: such stores commute across cores,
    so two runs that interleave the cores' stores otherwise leave the same contents. One core's
    keep their order: GM applies them in the order the core issues them, and additions round
    (floats) or truncate (a float tile into an integer tensor) otherwise in another order (probes
    h104, h106: two stages of one vector core adding into one region, reordered by the pipeline,
    summed to other values)."""
    if len(writers) < 2:  # the common case: one writer is in canonical order
        return tuple(writers)
    out: list = []
    run: list = []
    for w in dict.fromkeys(writers):
        if run and atomic.get(w) != atomic.get(run[0]):
            out += _canonical(run)
            run = []
        if atomic.get(w):
            run.append(w)
        else:
            out.append(w)
    return tuple(out + _canonical(run))


def _canonical(run: list) -> list:
    """A run of atomic stores of one class in canonical order: each core's in the order it
    issued them, the cores in turn."""
    by_core: dict = {}
    for w in run:
        by_core.setdefault(w[0], []).append(w)
    return [w for core in sorted(by_core, key=repr) for w in by_core[core]]


def contents(pieces: list[tuple], atomic: dict | None = None) -> tuple:
    """What a tensor holds, from the write records left on it `(r0, r1, c0, c1, writer)`: for
    every element, the writes whose value may be there (one, unless writes race or may not
    happen), in the order they wrote: the last one that did holds, so two runs agree only when
    they write in one order. Canonical, so two runs that split their records differently compare
    equal when every element agrees: bands of rows, each a tuple of maximal column runs
    `(c0, c1, writers)`, as `(r0, r1, runs)` with equal neighbouring bands merged."""
    rows = sorted({r for p in pieces for r in p[:2]})
    bands: list[tuple] = []
    for a, b in zip(rows, rows[1:], strict=False):
        live = [p for p in pieces if p[0] <= a and b <= p[1]]
        cols = sorted({c for p in live for c in p[2:4]})
        runs: list[tuple] = []
        for c0, c1 in zip(cols, cols[1:], strict=False):
            who = commuted([p[4] for p in live if p[2] <= c0 and c1 <= p[3]], atomic or {})
            if not who:
                continue
            if runs and runs[-1][1] == c0 and runs[-1][2] == who:
                runs[-1] = (runs[-1][0], c1, who)
            else:
                runs.append((c0, c1, who))
        if not runs:
            continue
        if bands and bands[-1][1] == a and bands[-1][2] == tuple(runs):
            bands[-1] = (bands[-1][0], b, bands[-1][2])
        else:
            bands.append((a, b, tuple(runs)))
    return tuple(bands)


def twin_races(trace: Trace) -> list[Race]:
    """Conflicts between the two vector cores' copies of one op. Both copies run at the same
    time on hardware, in the serial kernel as in the pipelined one, so nothing can order
    them: one writing memory both cores share (GM, the cube core's buffers) that the other
    reads or writes is a race of the kernel as written, whatever the values (the emulator
    reports it as such). A superset foot (`window`: a valid shape or an offset known only at
    run time) that overlaps the other copy's may reach it, and surely does where two GM feet
    start on the same element; a foot whose place is not known at all (the whole tensor)
    proves nothing. An op that may not run (`may`) gives a race that may not happen. Found
    op by op: it costs one pass."""
    twin_of = {ev.ident: ev for ev in trace.events[AIV1] if ev.kind == "op"}
    races: list[Race] = []
    for a in trace.events[AIV0]:
        b = twin_of.get(a.ident) if a.kind == "op" else None
        if b is None or not (a.writes or b.writes):
            continue
        pairs = [(fa, fb) for fa in a.writes for fb in (*b.reads, *b.writes)]
        pairs += [(fa, fb) for fa in a.reads for fb in b.writes]
        for fa, fb in pairs:
            if not fa.overlaps(fb) or INF in (fa.r1, fa.c1, fb.r1, fb.c1) or fa.commutes(fb):
                continue  # on-chip memory is keyed by its core: only shared memory meets
            # a superset foot (a valid shape or an offset known only at run time) that overlaps
            # the other copy's may reach it (`window` kept on the race: "if the valid shapes let
            # both reach"); two GM feet starting on the same element both touch it
            same_start = (fa.r0, fa.c0) == (fb.r0, fb.c0) and fa.key[0] == "GM"
            window = (fa.window or fb.window) and not same_start
            may = fa.may or fb.may
            races.append(Race(a, b, fa._replace(may=may, window=window), fb._replace(may=may, window=window)))
            break
    return races


def _twins(a: Event, b: Event) -> bool:
    """The same op on both AIVs: each works on its own half (or writes the same bytes). They
    run at the same time in the serial kernel too, so they are neither a race nor ordered.
    (Cores first: most pairs are on one core, and their idents, long tuples, need no compare.)"""
    return a.core != b.core and a.core != AIC and b.core != AIC and a.ident == b.ident


def _outside(f: Foot, w: Foot) -> list[Foot]:
    """The parts of `f` that the overlapping rectangle `w` does not cover (at most four)."""
    pieces = []
    if f.r0 < w.r0:
        pieces.append(f._replace(r1=w.r0))
    if w.r1 < f.r1:
        pieces.append(f._replace(r0=w.r1))
    mid0, mid1 = max(f.r0, w.r0), min(f.r1, w.r1)
    if f.c0 < w.c0:
        pieces.append(f._replace(r0=mid0, r1=mid1, c1=w.c0))
    if w.c1 < f.c1:
        pieces.append(f._replace(r0=mid0, r1=mid1, c0=w.c1))
    return pieces


def run_sequential(trace: Trace) -> Outcome:
    """The serial kernel's meaning: every event in program order, nothing concurrent."""
    outcome = Outcome()
    memory = _Memory(outcome, concurrent=False)
    events = sorted((ev for core in trace.events for ev in core), key=lambda e: e.seq)
    for ev in events:
        if ev.kind == "op":
            memory.access(ev, ZERO, 0)
    memory.finish()
    return outcome


class _Concurrent:
    def __init__(self, trace: Trace, twins_race: bool = False):
        self.trace = trace
        self.outcome = Outcome()
        self.memory = _Memory(self.outcome, concurrent=True, twins_race=twins_race)
        self.clock = [[ZERO] * NPIPES for _ in range(3)]
        self.mutex: list[dict[int, tuple]] = [{}, {}, {}]
        self.sets: dict[tuple, list[tuple[str, tuple]]] = defaultdict(list)  #: (sender, receiver, id) -> sets
        self.consumed: dict[tuple, int] = defaultdict(int)
        self.flags: dict[tuple, list[tuple]] = defaultdict(list)
        self.pipes_of: dict[tuple, set[str]] = defaultdict(set)
        for core, events in enumerate(trace.events):
            for ev in events:
                if ev.kind == "set":
                    for r in SET_RECEIVERS[core]:
                        self.pipes_of[(core, r, ev.event_id)].add(ev.pipe)

    def run(self) -> Outcome:
        """Advance every core as far as it can; a wait on a counter fed from several pipes is
        taken last, when nothing else can move (see `_acquired`)."""
        pos = [0, 0, 0]
        events = self.trace.events
        while True:
            progress = False
            for core in range(3):
                while pos[core] < len(events[core]):
                    ev = events[core][pos[core]]
                    kind = ev.kind  # (`_mixed` asks only of a wait)
                    if kind == "barrier" or kind == "wait" and self._mixed(core, ev) or not self.step(core, ev):
                        break
                    pos[core] += 1
                    progress = True
            if progress:
                continue
            ready = [c for c in range(3) if pos[c] < len(events[c]) and self._mixed(c, events[c][pos[c]])
                     and self._satisfiable(c, events[c][pos[c]])]
            if ready:
                core = ready[0]
                self.step(core, events[core][pos[core]], exact=len(ready) == 1)
                pos[core] += 1
                continue
            if self._barrier(pos):
                continue
            break
        stuck = [events[c][pos[c]] for c in range(3) if pos[c] < len(events[c])]
        if stuck:
            self.outcome.deadlock = stuck
        else:
            self._balance()
            if not self.outcome.overflow and any(len(pipes) > 1 for pipes in self.pipes_of.values()):
                self.outcome.overflow = eager_counts(events, self.trace.cores)[0]
            if not self.outcome.overflow:
                self.outcome.overflow = lagging_counts(events, self.trace.cores)
        self.memory.finish()
        return self.outcome

    def _barrier(self, pos: list[int]) -> bool:
        """Pass one barrier every core it joins has reached (`pto_api.effects.barrier_kinds`):
        every pipe of those cores then follows everything any of them issued."""
        events = self.trace.events
        heads = {c: events[c][pos[c]] for c in range(3) if pos[c] < len(events[c])}
        for ev in heads.values():
            if ev.kind != "barrier":
                continue
            members = [c for c in self.trace.cores if CORE_KIND[c] in (barrier_kinds(ev.pipe) or ())]
            if all(c in heads and heads[c].kind == "barrier" and heads[c].pipe == ev.pipe for c in members):
                joined = ZERO
                for c in members:
                    for vc in self.clock[c]:
                        joined = join(joined, vc)
                for c in members:
                    self.clock[c] = [joined] * NPIPES
                    pos[c] += 1
                return True
        return False

    def _wait_keys(self, core: int, ev: Event) -> list[tuple]:
        return [(s, core, ev.event_id) for s in WAIT_SENDERS[core]]

    def _mixed(self, core: int, ev: Event) -> bool:
        """A wait on a counter that sets from more than one pipe feed."""
        return ev.kind == "wait" and any(len(self.pipes_of[k]) > 1 for k in self._wait_keys(core, ev))

    def _satisfiable(self, core: int, ev: Event) -> bool:
        return all(len(self.sets[k]) > self.consumed[k] for k in self._wait_keys(core, ev))

    def step(self, core: int, ev: Event, exact: bool = True) -> bool:
        kind = ev.kind
        if kind == "op":
            p = PIPE_INDEX[ev.pipe]
            vc = self.clock[core][p]
            if ev.flag:  # a `phase=` call waits for its Acc region's unit flag, then takes its setter's clock
                value, released, _ = self.outcome.unit_flags.get((core, ev.flag[0]), (UNIT_FLAG_START, ZERO, None))
                if value != ev.flag[1]:
                    return False  # only this core's later ops could change it: it hangs
                vc = join(vc, released)
            held = self.mutex[core]
            for m in ev.mutex:
                if m in held:
                    vc = join(vc, held[m])
            comp = core * NPIPES + p
            vc = vc[:comp] + (vc[comp] + 1,) + vc[comp + 1:]
            self.clock[core][p] = vc
            for m in ev.mutex:
                held[m] = vc
            self.memory.access(ev, vc, comp)
            if ev.flag and ev.flag[2] is not None:  # Final: sets the flag, releasing its pipe's clock
                self.outcome.unit_flags[(core, ev.flag[0])] = (ev.flag[2], vc, ev)
            return True
        if kind == "set":
            carried = self.clock[core][PIPE_INDEX[ev.pipe]]
            for r in SET_RECEIVERS[core]:
                key = (core, r, ev.event_id)
                self.sets[key].append((ev.pipe, carried))
                if len(self.sets[key]) - self.consumed[key] > COUNTER_DEPTH:
                    self.outcome.overflow.append(ev)
            return True
        if kind == "wait":
            keys = self._wait_keys(core, ev)
            if not self._satisfiable(core, ev):
                return False
            p = PIPE_INDEX[ev.pipe]
            got = ZERO
            for k in keys:
                self.consumed[k] += 1
                got = join(got, self._acquired(k, exact))
            self._acquire(core, p, got)
            return True
        if kind == "sync_src":
            self.flags[(core, ev.pipe, ev.wait_pipe, ev.event_id)].append(self.clock[core][PIPE_INDEX[ev.pipe]])
            return True
        if kind == "sync_dst":
            queue = self.flags[(core, ev.pipe, ev.wait_pipe, ev.event_id)]
            if not queue:
                return False
            self._acquire(core, PIPE_INDEX[ev.wait_pipe], queue.pop(0))
            return True
        if kind == "mutex_lock":  # the pipe's later work after what the id's last unlock (or op) passed on
            last = self.mutex[core].get(ev.event_id)
            if last is not None:
                p = PIPE_INDEX[ev.pipe]
                self.clock[core][p] = join(self.clock[core][p], last)
            return True
        if kind == "mutex_unlock":  # what the pipe has issued, passed on to the id's next lock
            vc = self.clock[core][PIPE_INDEX[ev.pipe]]
            last = self.mutex[core].get(ev.event_id)
            self.mutex[core][ev.event_id] = vc if last is None else join(last, vc)
            return True
        if kind == "bar":
            if ev.pipe != "ALL":
                # `bar_mte2()`: the pipe's earlier ops finish before its later ones, which its
                # queue already does; the other pipes are not held (the emulator's model too)
                return True
            # every pipe but the scalar one (PyPTO's barrier waits for V, M, MTE1, MTE2, MTE3 and FIX):
            # a scalar store before it is not finished for the DMA after it (probe h142)
            joined = ZERO
            for i, vc in enumerate(self.clock[core]):
                if i in BAR_ALL:
                    joined = join(joined, vc)
            self.clock[core] = [join(vc, joined) for vc in self.clock[core]]
            return True
        return True

    def _acquire(self, core: int, p: int, got: tuple) -> None:
        """A wait on pipe `p` of `core` passed with what `got` carries: later work of that pipe
        follows it, and of every pipe when `p` is the scalar one, which stalls the issue of all
        the core's later work until it passes. The scalar pipe's own earlier work is not waited
        for by the other pipes (a scalar store needs a flag of its own before a DMA reads it)."""
        if p == SCALAR:
            self.clock[core] = [join(c, got) for c in self.clock[core]]
        else:
            self.clock[core][p] = join(self.clock[core][p], got)

    def _acquired(self, key: tuple, exact: bool) -> tuple:
        """What the k-th wait on a counter may rely on. With sets from one pipe the k-th set is
        the one consumed (a pipe completes in order). With sets from several pipes only "k sets
        have completed" is known: take what every way of splitting k over the pipes implies.

        Such waits are taken when no other core can move (`run`), so the sets issued by then are
        all that can complete before this wait does (anything later depends on this core going
        on): `exact` splits only over them. When another core is stuck at such a wait too, that
        is not known, and sets still to come count with the least clock they can carry."""
        k = self.consumed[key]
        issued = self.sets[key]
        pipes = sorted(self.pipes_of[key])
        sender = key[0]
        per_pipe = {p: [vc for q, vc in issued if q == p] for p in pipes}
        if exact or len(pipes) == 1:
            totals = {p: len(per_pipe[p]) for p in pipes}
        else:
            totals = {p: sum(1 for ev in self.trace.events[sender] if ev.kind == "set" and ev.pipe == p
                             and ev.event_id == key[2]) for p in pipes}

        def clock_of(p: str, a: int) -> tuple:
            if a == 0:
                return ZERO
            if a <= len(per_pipe[p]):
                return per_pipe[p][a - 1]
            return self.clock[sender][PIPE_INDEX[p]]  # not issued yet: it will carry at least this

        return after_sets(k, totals, clock_of, join, meet, ZERO)

    def _balance(self) -> None:
        for key, issued in self.sets.items():
            left = len(issued) - self.consumed[key]
            if left:
                sender, receiver, eid = key
                self.outcome.unbalanced.append(f"{left} set(s) of event id {eid} from {_core(sender)} to "
                                               f"{_core(receiver)} are never waited for")
        for (core, sp, wp, eid), queue in self.flags.items():
            if queue:
                self.outcome.unbalanced.append(f"{len(queue)} sync_src({sp} -> {wp}, id {eid}) on {_core(core)} "
                                               "are never consumed by a sync_dst")


def _core(index: int) -> str:
    return CORES[index]


def pending_at_waits(events: list[list[Event]]) -> int:
    """The most sets of one counter pending where a wait for it comes, in the order the run
    followed the kernel's statements (`Event.seq`): the sections one after another, as the
    serial kernel runs them. A set raised before the wait that takes it, however many waits
    for other counters or barriers lie between (credits a core primes one by one, each after a
    handshake), counts; a wait that comes before its set (the other side of a handshake)
    takes the set raised after it."""
    sets: Counter = Counter()
    consumed: Counter = Counter()
    most = 0
    for ev in heapq.merge(*events, key=_seq):  # each core's events are in `seq` order already
        if ev.kind == "set":
            for receiver in SET_RECEIVERS[ev.core]:
                sets[(ev.core, receiver, ev.event_id)] += 1
            continue
        if ev.kind != "wait":
            continue
        for key in [(sender, ev.core, ev.event_id) for sender in WAIT_SENDERS[ev.core]]:
            most = max(most, sets[key] - consumed[key])
            consumed[key] += 1
    return most


def _seq(ev: Event) -> int:
    return ev.seq


def eager_counts(events: list[list[Event]], cores: tuple = (0, 1, 2)) -> tuple[list[Event], int]:
    """(the sets that overflow a counter, the most sets of one counter pending at once) when
    every wait is taken as soon as its sets are there. The run takes a wait on a counter fed
    from several pipes last, when nothing else can move (`_Concurrent.run`), which keeps the
    core waiting from running ahead; the hardware takes it as soon as it can, and the core that
    waits may then raise many sets before the other consumes one. Only the counts are followed."""
    counts = _Counts(events, cores)
    counts.run_free(None)
    return counts.out, counts.most


def lagging_counts(events: list[list[Event]], cores: tuple = (0, 1, 2)) -> list[Event]:
    """The sets that overflow a counter when its receiver lags as far as the syncs let it: each
    core in turn is held back one event at a time while the others run as far as they can. The
    most sets pending at once on a counter is reached with its receiver stopped somewhere and its
    senders as far ahead as the receiver's progress lets them; one schedule of the run does not
    show it (probe h256: a hand kernel taking a beat's sets after it released the beat's tile
    left three beats of sets pending, where the run, and the check, saw two)."""
    for held in cores:
        counts = _Counts(events, cores)
        while True:
            counts.run_free(held)
            if counts.out or not counts.step(held):
                break
        if counts.out:
            return counts.out
    return []


class _Counts:
    """Each core's place in its events and each counter's sets and waits, for `eager_counts`
    and `lagging_counts`: only the counts are followed."""

    def __init__(self, events: list[list[Event]], cores: tuple) -> None:
        self.events, self.cores = events, cores
        self.pos = [0, 0, 0]
        self.sets: Counter = Counter()
        self.consumed: Counter = Counter()
        self.out: list[Event] = []
        self.most = 0

    def step(self, core: int) -> bool:
        """Run `core`'s next event if it can (a wait whose sets are there, a set, an op); a
        barrier is passed by `run_free` alone."""
        if self.pos[core] >= len(self.events[core]):
            return False
        ev = self.events[core][self.pos[core]]
        if ev.kind == "barrier":
            return False
        if ev.kind == "wait":
            keys = [(sender, core, ev.event_id) for sender in WAIT_SENDERS[core]]
            if not all(self.sets[k] > self.consumed[k] for k in keys):
                return False
            self.consumed.update(keys)
        elif ev.kind == "set":
            for receiver in SET_RECEIVERS[core]:
                key = (core, receiver, ev.event_id)
                self.sets[key] += 1
                self.most = max(self.most, self.sets[key] - self.consumed[key])
                if self.sets[key] - self.consumed[key] > COUNTER_DEPTH:
                    self.out.append(ev)
        self.pos[core] += 1
        return True

    def run_free(self, held: int | None) -> None:
        """Every core but `held` runs as far as it can, barriers passed where every core they
        join stands at them (`held` too, which stands still)."""
        events, pos = self.events, self.pos
        while True:
            progress = False
            for core in range(3):
                if core != held:
                    while self.step(core):
                        progress = True
            heads = {c: events[c][pos[c]] for c in range(3) if pos[c] < len(events[c])}
            passed = False
            for ev in heads.values():
                members = [c for c in self.cores if CORE_KIND[c] in (barrier_kinds(ev.pipe) or ())] \
                    if ev.kind == "barrier" else []
                if members and all(c in heads and heads[c].kind == "barrier" and heads[c].pipe == ev.pipe
                                   for c in members):
                    for c in members:  # (the held core too, where it stands at the barrier with the others)
                        pos[c] += 1
                    passed = True
                    break
            if not (progress or passed):
                return


def run_concurrent(trace: Trace, twins_race: bool = False) -> Outcome:
    """The pipelined kernel's meaning on hardware: cores ordered only by syncs and mutexes.
    `twins_race`: the same op on both vector cores conflicts like any other pair. A kernel
    the author pipelined needs it; a generated one has its twins in the serial kernel too,
    where they are the author's, not the transpiler's."""
    return _Concurrent(trace, twins_race).run()
