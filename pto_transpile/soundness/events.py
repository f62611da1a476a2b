"""What one run of a kernel does, as the soundness check sees it: per-core streams of events.

An op event carries the memory it reads and writes as footprints; a sync event names its
channel. Footprints are rectangles `[r0, r1) x [c0, c1)` in one memory: tiles use byte
intervals (`c0, c1 = 0, 1`), GM tensors element coordinates, so both overlap the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import libcst as cst

CORES = ("AIC", "AIV0", "AIV1")
AIC, AIV0, AIV1 = 0, 1, 2
#: The kind of each core, as `pto_api.effects` names the cores a barrier joins.
CORE_KIND = ("aic", "aiv", "aiv")
#: Counters a cross-core set raises: an AIC set reaches both AIVs of its block, an AIV set the AIC.
SET_RECEIVERS = {AIC: (AIV0, AIV1), AIV0: (AIC,), AIV1: (AIC,)}
#: Senders whose sets one wait consumes: the AIC waits for a set from each AIV.
WAIT_SENDERS = {AIC: (AIV0, AIV1), AIV0: (AIC,), AIV1: (AIC,)}
INF = 1 << 62
#: the kinds of event that order one core's pipes or cores against each other (`Event.kind`)
SYNC_KINDS = frozenset({"set", "wait", "barrier", "bar", "sync_src", "sync_dst", "mutex_lock", "mutex_unlock"})




class Foot(NamedTuple):
    """Part of one memory an op touches; `may` when the op may not touch it (a runtime branch,
    an unknown index choosing among tiles). A named tuple: runs make thousands of them."""

    key: tuple  #: ("Vec", core) for on-chip memory, ("GM", tensor) for a tensor
    r0: int
    r1: int
    c0: int
    c1: int
    label: str  #: what the user calls it: `x_db[1]`, `out[64:96, 0:64]`
    may: bool = False
    #: a tile whose valid shape is smaller than its declared one: the op touches the valid
    #: window, this foot is the whole tile (a superset, compared as such)
    window: bool = False
    #: the reduction of an atomic store (`pto_api.effects.ATOMIC_REDUCTIONS`: "add"), "" for any
    #: other access. Feet only meet within one tensor, whose element type every store into it
    #: shares, so two atomic feet of one reduction are of one class (`effects.atomic_class`):
    #: they commute, and neither orders nor hides the other
    atomic: str = ""
    #: for a GM window placed nowhere (the whole tensor): why, where the reason is its shape
    unplaced: str = ""

    def commutes(self, other: Foot) -> bool:
        """Two atomic stores of one class: GM applies each as one read-modify-write per element,
        so their order changes only the rounding, and nothing need order them."""
        return bool(self.atomic) and self.atomic == other.atomic

    def overlaps(self, other: Foot) -> bool:
        return (self.key == other.key and self.r0 < other.r1 and other.r0 < self.r1
                and self.c0 < other.c1 and other.c0 < self.c1)

    def covers(self, other: Foot) -> bool:
        return (self.key == other.key and self.r0 <= other.r0 and other.r1 <= self.r1
                and self.c0 <= other.c0 and other.c1 <= self.c1)

    @property
    def region(self) -> tuple:
        return (self.key, self.r0, self.r1, self.c0, self.c1)


#: what the label of a foot of bytes a vector function reaches outside the tile it is given says
#: (`vfcalls._beyond`): `x_db[0] (bytes 0..8448 from its start, past its 8192 bytes)`
PAST_ITS_END = ", past its "

#: a `Foot` made from its ten fields in order, as `Foot(...)` makes it, without its Python-level
#: constructor (runs make thousands of feet): `new_foot(Foot, (key, r0, r1, c0, c1, label, may,
#: window, atomic, unplaced))`
new_foot = tuple.__new__


def windowed(foot: Foot) -> Foot:
    """`foot._replace(window=True)`: the same foot as a superset, which covers nothing."""
    key, r0, r1, c0, c1, label, may, _, atomic, unplaced = foot
    return new_foot(Foot, (key, r0, r1, c0, c1, label, may, True, atomic, unplaced))


def maybe(foot: Foot) -> Foot:
    """`foot._replace(may=True)`: the same foot, touched only if a branch runs."""
    key, r0, r1, c0, c1, label, _, window, atomic, unplaced = foot
    return new_foot(Foot, (key, r0, r1, c0, c1, label, True, window, atomic, unplaced))


@dataclass
class Event:
    core: int
    kind: str  #: "op", "set", "wait", "barrier" (pipe: its core type), "bar", "sync_src", "sync_dst",
    #: "mutex_lock", "mutex_unlock" (event_id: the mutex id)
    pipe: str = ""
    seq: int = 0  #: position in the run's sequential order
    reads: tuple[Foot, ...] = ()
    writes: tuple[Foot, ...] = ()
    mutex: tuple[int, ...] = ()
    event_id: int = 0
    wait_pipe: str = ""  #: the waiting pipe of an intra-core `sync_src`/`sync_dst` pair
    node: cst.CSTNode | None = None
    op: str = ""
    ident: tuple = ()  #: stable across the serial and pipelined runs: (scope..., ordinal)
    stage: str = ""
    task: int = -1  #: the stage invocation's number on this core (its task), -1 outside stages
    #: the scalar values an op computes with (`muls`'s scalar, the value `setval` stores): data the
    #: order of accesses does not show, compared with the serial twin's (`check._Report._scalars`)
    values: tuple = ()
    #: for each tile it uses, where that tile's valid shape was last set inside a loop (("stage",
    #: name, task) or ("body",)), or None: compared with the serial twin's (`check._Report._shapes`)
    shapes: tuple = ()
    #: its use of the Acc unit flag (`phase=`, `pto_api.sync.UNIT_FLAG`): (the Acc region
    #: (memory, lo, hi), the value it waits for, the value it sets or None, the phase as written)
    flag: tuple = ()
    #: it uses a tile picked among tiles of different auto_mutex ids, of which it holds only those
    #: every choice has (`OpEvents._mutex`): what the one it picks holds orders nothing here
    picked_mutex: bool = False


@dataclass
class Invocation:
    """One execution of a stage on one core, with the scalar values it received."""

    core: int
    stage: str
    number: int
    args: tuple
    node: cst.CSTNode | None = None


@dataclass
class Trace:
    events: list[list[Event]] = field(default_factory=lambda: [[], [], []])
    #: the cores a block of the kernel has: all three for a mix kernel; one vector core for a
    #: kernel with no `section_cube` (the JIT compiles it aiv-only), the cube alone for one with
    #: only `section_cube` (`kernel_cores`)
    cores: tuple = (0, 1, 2)
    invocations: list[Invocation] = field(default_factory=list)
    problems: list[tuple[str, cst.CSTNode | None]] = field(default_factory=list)  #: why the run is not modelled
    #: (core, id of the `s.f` node, its n-th read there) -> (value, node): each field of a struct
    #: the kernel's own code reads outside stages, compared with the serial run's
    #: (`check._Report._fields`): a stage given the struct writes its task's ctx entry instead
    fields: dict = field(default_factory=dict)
    #: ctx field -> (the value stored, what the field holds, its kind): the first value a field
    #: of the ctx ring changed by converting it to its type (`pto_api.scalars`)
    conversions: dict = field(default_factory=dict)
