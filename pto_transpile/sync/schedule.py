"""Stage delays and ctx ring depth.

The first stage runs at delay 0; the first stage on the other core one beat later; every
later stage on a core `preload` beats after that core's previous stage. For a strictly
alternating chain this is delay(i) = (i // 2) * preload + (i % 2).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Schedule:
    preload: int
    delays: tuple[int, ...]

    @property
    def serial(self) -> bool:
        return self.preload == 0

    @property
    def depth(self) -> int:
        """Ring depth D = max delay + 1 (1 in serial mode: no ring)."""
        return max(self.delays, default=0) + 1

    @property
    def drain_beats(self) -> int:
        return self.depth - 1


def compute_delays(sections: list[str], preload: int) -> tuple[int, ...]:
    """Delay per stage, given each stage's core ("cube"/"vector") in chain order."""
    if preload == 0:
        return tuple(0 for _ in sections)
    delays: list[int] = []
    last_on_core: dict[str, int] = {}
    for i, core in enumerate(sections):
        if i == 0:
            d = 0
        elif core not in last_on_core:
            d = delays[i - 1] + 1
        else:
            d = last_on_core[core] + preload
        delays.append(d)
        last_on_core[core] = d
    return tuple(delays)


def schedule_for(sections: list[str], preload: int) -> Schedule:
    return Schedule(preload, compute_delays(sections, preload))
