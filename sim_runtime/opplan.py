"""What an op will do, decided before it runs: pipe, cost, accesses, effect, mutex ids."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FlagUse:
    """A call's use of the Acc unit flag (`phase=`, `pto_api.sync.UNIT_FLAG`)."""

    region: tuple[int, int]  #: the Acc tile's bytes [lo, hi) in the L0C of its cube core
    waits: int  #: the value the op waits for before its access
    sets: int | None  #: the value it sets after it (None: it leaves the flag)
    phase: str  #: how reports name the phase ("AccPhase.Final")


@dataclass
class OpPlan:
    """One op of one core. `run` performs its effect; `accesses` are (memory, Footprint, "R"/"W"),
    or with a fourth item, the atomic class of an atomic store (`pto_api.effects.atomic_class`).

    A vector function only knows its accesses and register-op count once it has run, so
    `run` may fill `accesses` and set `cost`; the machine reads both after calling it.
    """

    pipe: str
    cost: int
    run: Callable[[], object]
    accesses: list = field(default_factory=list)
    mutex: tuple = ()
    label: str = ""  #: how reports name the op (default `pl.<name>`)
    flag: FlagUse | None = None  #: its use of the Acc unit flag, if it is given a `phase=`
