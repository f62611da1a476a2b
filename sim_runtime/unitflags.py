"""The Acc unit flag (`phase=` of `matmul*` / `store*`), one per Acc region of a cube core.

A call with a phase waits until its region's flag holds the value `pto_api.sync.UNIT_FLAG`
names; a Final one then flips it. The flag is followed in program order on its core
(`assumed`): only the core's own later ops can change it, so a call that finds the other
value hangs. The op that set the flag leaves its pipe's clock and its end in it; the next
call that waits on the flag takes both (race detector and timing), as a wait takes a set's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pto_api.sync import UNIT_FLAG_START
from sim_runtime.errors import DeadlockError, Location, UnsupportedOpError
from sim_runtime.opplan import FlagUse


@dataclass
class Flag:
    """One region's flag: its value and what the op that last set it releases."""

    value: int = UNIT_FLAG_START
    setter: str = ""  #: the op that last set it, as reports name it ("" : none yet)
    clock: np.ndarray | None = None  #: its pipe's vector clock after it (`races`)
    end: int = 0  #: when it finished (`coretime`)


class UnitFlags:
    def __init__(self) -> None:
        self.flags: dict[tuple[int, int, int], Flag] = {}

    def wait(self, core, use: FlagUse, op: str, pipe: str, where: Location) -> Flag:
        """The flag `op` waits on, holding the value it waits for; a hang otherwise."""
        flag = self._region(core, use, op, where)
        if flag.value != use.waits:
            lo, hi = use.region
            by = f"last set by {flag.setter}" if flag.setter else "its value at launch"
            raise DeadlockError(
                f"{core.name}: {op}(phase={use.phase}) waits for the Acc unit flag of L0C [{lo:#x}, {hi:#x}) to "
                f"be {use.waits}, but it is {flag.value} ({by}); only a later op of this core could change it: "
                f"the {pipe} pipe hangs (the last matmul and the last store of an Acc region take Final)", where)
        return flag

    @staticmethod
    def set(flag: Flag, use: FlagUse, op: str, clock: np.ndarray, end: int, where: Location) -> None:
        """After `op` ran: a Final one sets the flag, releasing `clock` and `end`."""
        if use.sets is not None:
            flag.value, flag.setter, flag.clock, flag.end = use.sets, f"{op}(phase={use.phase}) at {where}", clock, end

    def _region(self, core, use: FlagUse, op: str, where: Location) -> Flag:
        key = (core.index, *use.region)
        flag = self.flags.get(key)
        if flag is None:
            lo, hi = use.region
            for c, a, b in self.flags:
                if c == core.index and a < hi and lo < b:
                    raise UnsupportedOpError(
                        f"{op}(phase={use.phase}) uses the unit flag of L0C [{lo:#x}, {hi:#x}), which overlaps the "
                        f"region [{a:#x}, {b:#x}) another phase call used: which flag the hardware keeps for them "
                        "is not documented", where)
            flag = self.flags[key] = Flag()
        return flag
