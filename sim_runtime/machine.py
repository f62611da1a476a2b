"""The emulated launch: cores, memories, flags, race detector, timeline, and the op pipeline.

Every `pl` op funnels through `Machine.execute`: scheduling point first (so ops run in
simulated-time order across cores), then the op's numpy effect, then its accesses are
checked for races and its span is recorded. Sync calls and section entries are the other
scheduling points; they may block. When each op runs is `coretime.CoreTime`'s answer (a
front end issuing into per-pipe queues); the scheduler orders cores by their front end.
"""

from __future__ import annotations

import random
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass

from pto_api import EVENT_IDS, PIPES
from pto_api.effects import barrier_kinds
from pto_api.memory import MEMORY_SPACES
from sim_runtime import costs, ops
from sim_runtime.atomics import HeldAtomics
from sim_runtime.coretime import CoreTime
from sim_runtime.crosscore import MODE_NAMES, Counters, SetRecord
from sim_runtime.errors import (
    DeadlockError,
    KernelError,
    Location,
    RaceError,
    SectionMismatchError,
    SimulationError,
    SyncBalanceError,
    located,
)
from sim_runtime.memory import Memory, space_capacity
from sim_runtime.opplan import OpPlan
from sim_runtime.races import Access, RaceDetector
from sim_runtime.scheduler import Blocker, Scheduler
from sim_runtime.timeline import Span, Timeline
from sim_runtime.unitflags import UnitFlags


class Core:
    """One AIC or AIV: its clock, stage stack and scheduling state (variables live in its thread)."""

    def __init__(self, machine: Machine, index: int, kind: str, block: int, sub: int, name: str):
        self.machine = machine
        self.index, self.kind, self.block, self.sub, self.name = index, kind, block, sub, name
        self.time = CoreTime()
        self.blocker: Blocker | None = None
        self.finished = False
        self.error: BaseException | None = None
        self.go = threading.Semaphore(0)
        self.stage_stack: list[_OpenStage] = []
        self.stage_counts: dict[str, int] = defaultdict(int)
        self.sections: list[tuple[str, int]] = []
        self.barriers: Counter[str] = Counter()  #: sync_all calls so far, per core type

    @property
    def clock(self) -> int:
        """Where the core's front end is: the time the scheduler orders cores by."""
        return self.time.issue

    def blocked_in(self) -> str:
        """The wait or barrier the core is blocked in (an unfinished core is only ever stuck on one)."""
        assert self.blocker is not None, f"{self.name} is stuck without a blocker"
        return self.blocker.describe()

    def stage_label(self) -> str:
        if not self.stage_stack:
            return ""
        top = self.stage_stack[-1]
        return f"{top.name} (s{top.number}·i{top.task})"

    def record(self, machine: Machine, span: Span) -> None:
        """Add `span` to the timeline, as part of the innermost open stage."""
        if self.stage_stack:
            top = self.stage_stack[-1]
            span.stage, span.task, span.stage_fn = top.number, top.task, top.name
            top.cover(span.start, span.end)
        machine.timeline.add(span)


@dataclass
class _OpenStage:
    """A stage invocation in progress: it spans the work issued inside it."""

    name: str
    number: int
    task: int
    entered: int
    start: int | None = None
    end: int = 0

    def cover(self, start: int, end: int) -> None:
        self.start = start if self.start is None else min(self.start, start)
        self.end = max(self.end, end)


@dataclass
class CoreStats:
    busy: int  #: cycles in which at least one pipe of the core works
    idle: int
    utilisation: float


class _Barrier:
    """A barrier instance (sequential section k, or the n-th sync_all of a core type)."""

    def __init__(self, size: int):
        self.size = size
        self.arrivals: list[tuple] = []
        self.released = False

    def ready(self) -> bool:
        return len(self.arrivals) >= self.size

    def time(self) -> int:
        return max((a[1] for a in self.arrivals), default=0)


class _BarrierWait:
    def __init__(self, barrier: _Barrier, text: str):
        self.barrier, self.text = barrier, text

    def ready(self) -> bool:
        return self.barrier.ready()

    def time(self) -> int:
        return self.barrier.time()

    def describe(self) -> str:
        return self.text


class _FlagWait:
    def __init__(self, counters: Counters, keys, need_all, text: str):
        self.counters, self.keys, self.need_all, self.text = counters, keys, need_all, text

    def ready(self) -> bool:
        return self.counters.ready(self.keys, self.need_all)

    def time(self) -> int:
        return self.counters.ready_time(self.keys, self.need_all)

    def describe(self) -> str:
        return self.text


def _pipe_name(pipe) -> str:
    name = getattr(pipe, "name", pipe)
    if name not in PIPES:
        raise KernelError(f"not a pl.PipeType usable here: {pipe!r}")
    return name


#: The most blocks the emulator launches. Its race detector keeps, per pipe of every core, a
#: vector clock with one entry per pipe of every core: memory grows with the square of the
#: blocks (512 blocks: 3 cores x 7 pipes each, 10,752 clocks of 10,752 entries, about 1 GB),
#: and 100,000 blocks would need terabytes. Real launches use a few dozen.
MAX_BLOCK_DIM = 512


class Machine:
    def __init__(self, *, block_dim: int = 1, kind: str = "mix", mode: str = "concurrent",
                 schedule: str = "fixed", seed: int = 0, auto_mutex: bool = True,
                 sync_owner: dict | None = None, stage_numbers: dict | None = None):
        if not isinstance(block_dim, int) or isinstance(block_dim, bool) or block_dim <= 0:
            raise KernelError(f"block_dim must be a positive int, got {block_dim!r}")
        if block_dim > MAX_BLOCK_DIM:
            raise KernelError(f"block_dim {block_dim} is more than the emulator launches ({MAX_BLOCK_DIM}): its race "
                              "detector's memory grows with the square of the blocks")
        if mode not in ("concurrent", "sequential"):
            raise ValueError(f"mode must be 'concurrent' or 'sequential', got {mode!r}")
        if schedule not in ("fixed", "random"):
            raise ValueError(f"schedule must be 'fixed' or 'random', got {schedule!r}")
        self.block_dim, self.kind, self.mode = block_dim, kind, mode
        self.auto_mutex = auto_mutex
        self.rng = random.Random(seed) if schedule == "random" else None
        self.sync_owner = sync_owner or {}
        self.stage_numbers = stage_numbers or {}
        self.cores: list[Core] = []
        for b in range(block_dim):
            if kind in ("mix", "cube"):
                self._add_core("aic", b, 0, f"b{b}.AIC")
            if kind == "mix":
                for s in (0, 1):
                    self._add_core("aiv", b, s, f"b{b}.AIV{s}")
            elif kind == "vector":
                self._add_core("aiv", b, 0, f"b{b}.AIV")
        self.memories: dict[tuple, Memory] = {}
        self.counters = Counters(self)
        self.warnings: list[str] = []
        self.log: list[str] = []  #: what the kernel printed (`pl.printf`, `pl.dump_data`, failed `pl.pto_assert`)
        self.address_registers: dict[str, int] = {}  #: per core: the AR special register (see vf)
        self.vector_masks: dict[str, dict] = {}  #: per core: `pl.set_vec_mask` state (see ops.ssbuf)
        self.races = RaceDetector(self.cores, self.warnings)
        #: (core, the counters a wait takes from) -> the pipe and place of the first wait on them
        self.wait_pipes: dict[tuple, tuple[str, Location]] = {}
        self.atomics = HeldAtomics()
        self.unit_flags = UnitFlags()
        self.timeline = Timeline()
        self.scheduler = Scheduler(self.cores, self.rng)
        self.section_barriers: dict[int, list[_Barrier]] = defaultdict(list)
        self.sync_barriers: dict[tuple, _Barrier] = {}

    def _add_core(self, kind, block, sub, name):
        c = Core(self, len(self.cores), kind, block, sub, name)
        self.cores.append(c)

    # -- topology ---------------------------------------------------------------------------
    def aic_of(self, core) -> Core:
        for c in self.cores:
            if c.kind == "aic" and c.block == core.block:
                return c
        raise KernelError(f"{core.name}: this kernel has no cube core (no section_cube)")

    def aivs_of(self, block: int) -> list[Core]:
        out = [c for c in self.cores if c.kind == "aiv" and c.block == block]
        if not out:
            raise KernelError("this kernel has no vector cores (no section_vector)")
        return out

    def other_aiv(self, core) -> Core:
        if core.kind != "aiv" or self.kind != "mix":
            raise KernelError(f"{core.name}: INTER_SUBBLOCK sync needs the two AIVs of a mix kernel")
        return [c for c in self.aivs_of(core.block) if c is not core][0]

    def memory(self, space: str, core: Core) -> Memory:
        """`space` of `core` itself (UB of an AIV, L1/L0* of an AIC)."""
        key = (MEMORY_SPACES[space].hardware, core.name)
        mem = self.memories.get(key)
        if mem is None:
            mem = self.memories[key] = Memory(key, space, space_capacity(space))
        return mem

    def owner_memory(self, space: str, core: Core, sub: int | None = None) -> Memory:
        """The memory a tile of `space` named by `core` refers to (cross-core for Vec/Mat)."""
        owner = MEMORY_SPACES[space].owner
        if owner == core.kind:
            return self.memory(space, core)
        if owner == "aic":
            return self.memory(space, self.aic_of(core))
        aivs = self.aivs_of(core.block)
        return self.memory(space, aivs[sub or 0])

    def cost(self, cycles: int) -> int:
        if self.rng is not None:
            cycles = int(cycles * self.rng.uniform(0.5, 1.5))
        return max(int(cycles), 1)

    # -- ops --------------------------------------------------------------------------------
    def run_op(self, core: Core, name: str, args: tuple, kwargs: dict, where: Location):
        """`pl.<name>(*args, **kwargs)` called by `core` at `where`."""
        try:
            plan = ops.HANDLERS[name](ops.OpCall(self, core, name, args, kwargs, where))
        except SimulationError as exc:
            raise located(exc, where) from None
        return self.execute(core, name, plan, where)

    def execute(self, core: Core, op: str, plan: OpPlan, where: Location):
        self.scheduler.point(core)
        label = plan.label or f"pl.{op}"
        flag = self.unit_flags.wait(core, plan.flag, label, plan.pipe, where) if plan.flag else None
        self.atomics.settle(plan.accesses)
        try:
            result = plan.run()
        except SimulationError as exc:
            raise located(exc, where) from None
        mutex = plan.mutex if self.auto_mutex else ()
        start, end = core.time.op(plan.pipe, self.cost(plan.cost), mutex, after=flag.end if flag else 0)
        if flag is not None and flag.clock is not None:  # it waited for the op that set the flag
            self.races.acquire(core, plan.pipe, [flag.clock])
        vc, comp, epoch = self.races.op_clock(core, plan.pipe, mutex)
        stage = core.stage_label()
        for mem, fp, kind, *atomic in sorted(plan.accesses, key=lambda a: a[2] != "R"):
            data = None
            if kind == "W" and core.kind == "aiv":
                data = fp.snapshot(mem.buf)
            acc = Access(fp, kind, core, plan.pipe, comp, epoch, label, where, stage, data, mem.label(), *atomic)
            self.races.check(acc, vc)
        if flag is not None and plan.flag is not None:
            self.unit_flags.set(flag, plan.flag, label, self.races.release_clock(core, plan.pipe), end, where)
        core.record(self, Span("op", core.block, core.name, op, start, end, pipe=plan.pipe,
                               where=str(where)))
        return result

    # -- stages ------------------------------------------------------------------------------
    def stage_enter(self, core: Core, fn_name: str) -> None:
        task = core.stage_counts[fn_name]
        core.stage_counts[fn_name] += 1
        core.stage_stack.append(_OpenStage(fn_name, self.stage_numbers.get(fn_name, 0), task, core.clock))

    def stage_exit(self, core: Core) -> None:
        top = core.stage_stack.pop()
        start = top.entered if top.start is None else top.start
        span = Span("stage", core.block, core.name, top.name, start, max(top.end, start), stage=top.number,
                    task=top.task, stage_fn=top.name)
        if core.stage_stack:  # a stage called inside another one is part of it
            core.stage_stack[-1].cover(span.start, span.end)
        self.timeline.add(span)

    def _sync_context(self, core: Core, where: Location) -> str:
        """Stage a sync call belongs to: the enclosing stage, or the stage its site guards."""
        if core.stage_stack:
            return core.stage_label()
        owner = self.sync_owner.get(where.line) if where else None
        if owner is None:
            return "outside any stage"
        fn, after = owner
        task = core.stage_counts[fn] - (1 if after else 0)
        return f"{fn} (s{self.stage_numbers.get(fn, 0)}·i{task})"

    # -- cross-core flags --------------------------------------------------------------------
    def set_cross_core(self, core: Core, pipe, event_id, mode: int, where: Location) -> None:
        pipe = _pipe_name(pipe)
        eid = _event_id(event_id, where)
        self.scheduler.point(core)
        fired = core.time.set_flag(pipe)
        span = Span("sync", core.block, core.name, "set_cross_core", fired, fired, pipe=pipe, where=str(where),
                    ident=self.timeline.new_id())
        rec = SetRecord(fired, self.races.release_clock(core, pipe), where, pipe, span.ident)
        self.counters.set(core, eid, mode, rec)
        core.record(self, span)

    def wait_cross_core(self, core: Core, pipe, event_id, mode: int, where: Location) -> None:
        pipe = _pipe_name(pipe)
        eid = _event_id(event_id, where)
        keys, need_all = self.counters.wait_keys(core, eid, mode)
        if self.mode == "sequential":  # counted and checked, never blocks
            self.scheduler.point(core)
            recs = self.counters.consume(keys, need_all, allow_debt=True)
        else:
            self._one_wait_pipe(core, keys, pipe, eid, where)
            text = (f"wait_cross_core(pipe={pipe}, event_id={eid}, sync_mode={MODE_NAMES.get(mode, mode)}) "
                    f"at {where}, stage {self._sync_context(core, where)}")
            self.scheduler.point(core, _FlagWait(self.counters, keys, need_all, text))
            recs = self.counters.consume(keys, need_all, allow_debt=False)
        released = max((r.time for r in recs), default=0)
        start, end = core.time.wait(pipe, released, self.cost(costs.COSTS.sync))
        self.races.acquire(core, pipe, [r.clock for r in recs], holds_issue=True)
        core.record(self, Span("wait", core.block, core.name, "wait_cross_core", start, end, pipe=pipe,
                               where=str(where), links=tuple(r.span for r in recs)))

    def _one_wait_pipe(self, core: Core, keys, pipe: str, eid: int, where: Location) -> None:
        """Refuse waits of one core on one event counter on two pipes. Each pipe runs its waits
        when it reaches them, and the counter gives a set to whichever wait runs first: a later
        task's wait on an idle pipe can take the set an earlier task's wait on a busy pipe was
        raised for. The emulator matches waits to sets in program order, which the hardware does
        not promise here, so the run proves nothing about them."""
        first = self.wait_pipes.setdefault((core.index, tuple(keys)), (pipe, where))
        if first[0] != pipe:
            raise RaceError(f"{core.name} waits for event id {eid} on pipe {first[0]} (at {first[1]}) and on pipe "
                            f"{pipe}: each pipe runs its waits when it reaches them, so a wait may take the set "
                            "raised for the other; wait for one event id on one pipe (`S` holds back all of the "
                            "core's later work)", where)

    # -- intra-core flags (sync_src / sync_dst) -----------------------------------------------
    def sync_src(self, core: Core, set_pipe, wait_pipe, event_id, where: Location) -> None:
        """Flag (set_pipe -> wait_pipe, id) raised after everything issued on set_pipe so far."""
        key = (_pipe_name(set_pipe), _pipe_name(wait_pipe), _event_id(event_id, where))
        self.races.sync_src(core, *key, where)
        core.time.sync_src(*key)

    def sync_dst(self, core: Core, set_pipe, wait_pipe, event_id, where: Location) -> None:
        """Later work on wait_pipe waits for the oldest unconsumed matching sync_src of this core.

        Only this core can raise the flag and it runs in program order, so a sync_dst with no
        earlier sync_src can never be satisfied: the pipe hangs."""
        key = (_pipe_name(set_pipe), _pipe_name(wait_pipe), _event_id(event_id, where))
        if not self.races.sync_dst(core, *key):
            raise DeadlockError(f"{core.name}: sync_dst(set_pipe={key[0]}, wait_pipe={key[1]}, event_id={key[2]}) "
                                "has no earlier matching sync_src on this core: the pipe would hang", where)
        core.time.sync_dst(*key)

    def mutex(self, core: Core, lock: bool, pipe, mid: int) -> None:
        """`mutex_lock`/`mutex_unlock` on `pipe`: ordering (race detector) and timing."""
        pipe = _pipe_name(pipe)
        if lock:
            self.races.mutex_lock(core, pipe, mid)
            core.time.mutex_lock(pipe, mid)
        else:
            self.races.mutex_unlock(core, pipe, mid)
            core.time.mutex_unlock(pipe, mid)

    def bar_all(self, core: Core) -> None:
        """Every pipe of the core after everything issued on any of its pipes."""
        self.races.join_core(core)
        core.time.bar_all()

    def sync_all(self, core: Core, core_type: str, where: Location) -> None:
        """Barrier over every core of `core_type` (MIX: all of them); syncing a core type the
        launch does not have is a device error."""
        kinds = barrier_kinds(core_type)
        if kinds is None:
            raise KernelError(f"unknown sync_all core_type {core_type}", where)
        missing = [k for k in kinds if not any(c.kind == k for c in self.cores)]
        if missing:
            raise KernelError(f"sync_all(core_type={core_type}) in a kernel without {missing[0].upper()} cores "
                              f"(a {self.kind}-only kernel syncs with core_type="
                              f"{'AIV_ONLY' if self.kind == 'vector' else 'AIC_ONLY'})", where)
        members = [c for c in self.cores if c.kind in kinds]
        if core not in members:
            raise KernelError(f"{core.name} calls sync_all(core_type={core_type}) but is not of that type", where)
        n = core.barriers[core_type]  # the n-th barrier of this type on every joined core
        core.barriers[core_type] += 1
        bar = self.sync_barriers.setdefault((core_type, n), _Barrier(len(members)))
        bar.arrivals.append((core, core.time.done()))
        self.scheduler.point(core, _BarrierWait(bar, f"sync_all(core_type={core_type}) #{n} at {where}"))
        self._pass_barrier(core, bar, members)

    def _pass_barrier(self, core: Core, bar: _Barrier, members) -> None:
        if not bar.released:
            bar.released = True
            self.races.join_all(members)
        core.time.resume_all(bar.time() + self.cost(costs.COSTS.sync))

    # -- sections (sequential mode is lock-step over sections, block by block) ---------------
    def enter_section(self, core: Core, kind: str, line: int) -> bool:
        """Sequential mode: the cores of one block (the AIC and its AIVs) meet every section
        together; blocks run independently, as on hardware, so blocks may do unequal work."""
        runs = (kind == "cube") == (core.kind == "aic")
        if self.mode != "sequential":
            return runs
        k = len(core.sections)
        core.sections.append((kind, line))
        team = [c for c in self.cores if c.block == core.block]
        barriers = self.section_barriers[core.block]
        while len(barriers) <= k:
            barriers.append(_Barrier(len(team)))
        bar = barriers[k]
        bar.arrivals.append((core, core.time.done(), kind, line))
        self.scheduler.point(core, _BarrierWait(bar, f"section #{k + 1} (section_{kind} at line {line})"))
        if not bar.released:
            seen = {(a[2], a[3]) for a in bar.arrivals}
            if len(seen) > 1:
                detail = "; ".join(f"{a[0].name} is at section_{a[2]} (line {a[3]})" for a in bar.arrivals)
                raise SectionMismatchError(
                    f"cores of block {core.block} disagree on section #{k + 1}: {detail} "
                    "(control flow depends on the core)")
        self._pass_barrier(core, bar, team)
        return runs

    # -- end of run --------------------------------------------------------------------------
    def stuck_error(self, live: list[Core]) -> SimulationError:
        if self.mode == "sequential":
            blocks = sorted({c.block for c in live})
            lines = [f"{c.name}: met {len(c.sections)} section(s)" +
                     (", finished" if c.finished else f", waiting at {c.blocked_in()}")
                     for c in self.cores if c.block in blocks]
            return SectionMismatchError("cores of one block disagree on the sequence of sections:\n  "
                                        + "\n  ".join(lines))
        lines = []
        for c in self.cores:
            if c.finished:
                lines.append(f"{c.name}: finished at cycle {c.clock}")
            else:
                lines.append(f"{c.name}: blocked in {c.blocked_in()} (cycle {c.clock})")
        counters = self.counters.describe() or ["all counters are zero"]
        return DeadlockError("deadlock: every unfinished core is blocked\n  " + "\n  ".join(lines)
                             + "\n counters:\n  " + "\n  ".join(counters))

    def check_balance(self, strict: bool) -> None:
        problems = []
        if self.counters.unbalanced():
            problems.append("cross-core flags unbalanced at kernel end:\n  " + "\n  ".join(self.counters.describe()))
        pending = self.races.pending_flags()
        if pending:
            problems.append("intra-core flags raised by sync_src and never consumed by a sync_dst:\n  "
                            + "\n  ".join(pending))
        for msg in problems:
            if strict:
                raise SyncBalanceError(msg)
            self.warnings.append(msg)
        if self.mode == "concurrent":
            for bar in self.sync_barriers.values():
                if not bar.released:
                    self.warnings.append("a sync_all barrier was not reached by every core")

    def makespan(self) -> int:
        return max((c.time.done() for c in self.cores), default=0)

    def stats(self) -> dict[str, CoreStats]:
        span = self.makespan()
        busy = self.timeline.busy_by_core()
        return {c.name: CoreStats(busy.get(c.name, 0), span - busy.get(c.name, 0),
                                  (busy.get(c.name, 0) / span) if span else 0.0) for c in self.cores}


def _event_id(event_id, where) -> int:
    try:
        eid = int(event_id)
    except (TypeError, ValueError):
        raise KernelError(f"event_id must be an int, got {event_id!r}", where) from None
    if eid not in EVENT_IDS:
        raise KernelError(f"event_id {eid} outside {EVENT_IDS.start}..{EVENT_IDS.stop - 1}", where)
    return eid
