"""What an op will do, decided before it runs: pipe, cost, accesses, effect, mutex ids."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


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
