"""What rotates in the loops of run-time trip count, and how often each loop repeats it.

The trip-count argument (docs/design.md, "For every trip count") runs a loop at counts chosen
by its period: how many of its iterations it takes for every rotation to come back where it
was. Rotations are the residues `x % k` the kernel takes (of a loop variable or a counter) and
the slots of its tile groups. Each loop's own period follows from what one of its iterations
moves each rotation by, measured here on a run: a counter's step, a group's moves per
iteration (the same in every iteration but the first and the last: `unsteady`). An outer
loop's iteration moves a rotation by `n` times what one inner iteration moves plus what its
own body moves, so its period is known for every inner trip count `n` (`outer_period`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Rotations:
    """What one run of the interpreter measured."""

    #: (core, group) -> how many times its cursor moved so far, and the group's name and depth
    moved: dict = field(default_factory=dict)
    group_names: dict = field(default_factory=dict)
    group_depths: dict = field(default_factory=dict)
    lost_groups: set = field(default_factory=set)  #: cursors made unknown (`rotated`)
    #: every residue taken, as (form of what it is taken of, k), but one taken right where it
    #: picks an entry of a certified sequence (`pick_residues`)
    residues: set = field(default_factory=set)
    #: residues taken right where they pick an entry of a sequence whose entries are
    #: interchangeable (a ctx ring, `ringsymmetry.py`; a tuple of tiles, an event-id list, a
    #: tile group picked by a counter, `renaming.py`): `arr[(t + c) % D]`
    pick_residues: set = field(default_factory=set)
    #: id of such a sequence -> the residues that picked its entries (None: a pick by anything
    #: else, or entries the run shows are not interchangeable: `renamed.py`)
    picks: dict = field(default_factory=dict)
    #: (core, id(group)) of tile groups whose slots are interchangeable (`renamed.py`): which
    #: slot their cursor is at joins no period
    renamed_groups: set = field(default_factory=set)
    #: (core, id(group)) -> the loops of run-time trip count running at each of its picks
    #: (`.next()`, `.current()`, `.previous()`): a slot picked outside a loop that moves the
    #: cursor is one fixed slot inside it (`renamed.py`)
    pick_loops: dict = field(default_factory=dict)
    #: (core, id(group)) -> the loops of run-time trip count running at some move of its cursor
    move_loops: dict = field(default_factory=dict)
    #: (memory, lo, hi) of a tile an iteration read before binding it -> those loops
    #: (`Loops._carried_tiles`): one fixed entry across their iterations
    carried: dict = field(default_factory=dict)
    #: (loop, variable) -> a counter's step per iteration of the loop (None: the cores step it
    #: differently, a counter of one section's cores)
    steps: dict = field(default_factory=dict)
    #: (loop, variable) -> core -> its step there
    core_steps: dict = field(default_factory=dict)
    #: (loop, group) -> the moves of a group's cursor per iteration (None: not known)
    group_moves: dict = field(default_factory=dict)
    #: loop -> its trip-count root, the counters it carries, its step (None: the block count)
    loop_facts: dict = field(default_factory=dict)
    #: loop -> the most iterations one of its runs took (fewer than 3: steps not measured)
    loop_lengths: dict = field(default_factory=dict)
    #: loop -> the loop of run-time trip count it runs in (None: outermost)
    loop_parents: dict = field(default_factory=dict)

    def rotated(self, core: int, group: Any, name: str, lost: bool = False) -> None:
        """A group's cursor moved (`.next()`); `lost`: under a condition followed both ways,
        after which its cursor is unknown and every pick of it may be any slot, whatever the
        iteration (it then repeats nothing: left out of the periods and the steady moves)."""
        key = (core, id(group))
        if lost or key in self.lost_groups:
            self.lost_groups.add(key)
            self.group_depths.pop(key, None)
            return
        self.moved[key] = self.moved.get(key, 0) + 1
        self.group_names[key] = name
        self.group_depths[key] = group.depth

    def picked(self, seq: Any, residue: tuple | None, length: int) -> None:
        """An entry of `seq` (of `length` entries) picked by `residue`, (form, k) of
        `seq[x % k]` (None: any other index, or entries that are not interchangeable)."""
        picks = self.picks.setdefault(id(seq), set())
        picks.add(residue if residue is not None and residue[1] == length else None)

    def periodic(self) -> set:
        """The residues that join the periods. A pick of a certified sequence's entry does not
        when every pick of that sequence is by that one residue of its length, and no
        sequence is picked by it otherwise: which entry holds what is then a renaming,
        whatever the phase (`ringsymmetry.py`, `renaming.py`, docs/design.md, "For every trip
        count")."""
        pure = {next(iter(p)) for p in self.picks.values() if len(p) == 1 and None not in p}
        spoilt = {r for p in self.picks.values() if len(p) > 1 or None in p for r in p}
        return self.residues | (self.pick_residues - (pure - spoilt))

    def loop_periods(self, groups: bool) -> dict:
        """Each trip-count root (its origin, as `Config.trips` names it) -> the lcm of
        `loop_period` of the loops it bounds."""
        out: dict = {}
        for key, (root, _carried, _step) in self.loop_facts.items():
            if root is not None and self.loop_lengths.get(key, 0) >= 3:  # else its steps are not measured
                out[root[1]] = math.lcm(out.get(root[1], 1), self.loop_period(key, groups))
        return out

    def outer_rotations(self, groups: bool) -> dict:
        """For each trip-count root of a loop around exactly one loop of run-time trip count:
        what one of its iterations moves each rotation by, as a function of the inner loop's
        trip count `n`: (k, a, b) for a move of `a * n + b` modulo `k`, (k, None, None) when
        not known (`outer_period`). The inner loop moves a counter or a group `n` times its
        own step (a step the same in every iteration, checked), the outer body by a constant:
        measured at this run's `n`, the constant is what is left."""
        out: dict = {}
        children: dict = {}
        for key, parent in self.loop_parents.items():
            children.setdefault(parent, []).append(key)
        for key, (root, _carried, _step) in self.loop_facts.items():
            inner = children.get(key, [])
            if root is None or len(inner) != 1 or min(self.loop_lengths.get(k, 0) for k in (key, *inner)) < 3:
                continue
            (child,) = inner
            n = self.loop_lengths[child]
            parts = out.setdefault(root[1], [])
            for form, k in self.periodic():
                a: int | None = 0
                b: int | None = 0
                for var, c in form:
                    if var == child:
                        continue  # restarts in every iteration of the outer loop
                    whole, own = self._step(key, var), self._step(child, var)
                    if whole is None or own is None or a is None or b is None:
                        a = b = None
                        break
                    a, b = a + c * own, b + c * (whole - n * own)
                parts.append((k, a, b))
            for group, depth in (self.turning() if groups else ()):
                whole, own = self.group_moves.get((key, group)), self.group_moves.get((child, group))
                parts.append((depth, None, None) if whole is None or own is None else (depth, own, whole - n * own))
        return out

    def loop_period(self, key: tuple, groups: bool = True) -> int:
        """How many iterations of loop `key` it takes for everything that repeats to repeat:
        each residue `x % k` repeats every `k / gcd(k, s)` iterations, `s` what `x` moves by
        in one (the loop variable by its step, a counter by its step, anything the loop does
        not move by 0), each tile group every `depth / gcd(depth, m)`, `m` its moves per
        iteration; where a step is not known, every `k` (or `depth`) iterations, as in the
        period `L` of every loop. Without `groups`, the groups are left out (the generated
        kernel: its stages move them as the serial kernel's do, counted there)."""
        parts = [1]
        for form, k in self.periodic():
            moved: int | None = 0
            for var, c in form:
                step = self._step(key, var)
                if step is None:
                    moved = None
                    break
                moved = (moved or 0) + c * step
            parts.append(k if moved is None else k // math.gcd(k, moved % k))
        for group, depth in (self.turning() if groups else ()):
            m = self.group_moves.get((key, group))
            parts.append(depth if m is None else depth // math.gcd(depth, m % depth))
        return math.lcm(*parts)

    def turning(self) -> list:
        """The groups whose cursor joins the periods: all but the renamed ones."""
        return [(g, d) for g, d in self.group_depths.items() if g not in self.renamed_groups]

    def _step(self, key: tuple, var: tuple) -> int | None:
        """What `var` moves by in one iteration of loop `key`, None when not known."""
        _root, carried, step = self.loop_facts[key]
        if var == key:
            return step
        if var[0] == "carried":
            return self.steps.get((key, var)) if var[1] in carried else 0
        if var[0] in ("loop", "size", "core", "scalar"):
            return 0  # another loop's variable (restarts in it, or fixed while it runs), a size
        return None

    def unsteady(self, moves: list[dict], margin: int = 1) -> str | None:
        """The name of a tile group that does not move its cursor as many times in every
        iteration of a loop but the `margin` first and last (`moves`: per iteration, group ->
        moves), or None. One rotated in some iterations only (`if ki % 2 == 0: x_db.next()`)
        repeats its slots with a period no `% k` or depth gives."""
        steady = moves[margin:len(moves) - margin]
        for key in {k for m in steady for k in m} - self.lost_groups:
            if len({m.get(key, 0) for m in steady}) > 1:
                return self.group_names.get(key, "a tile group")
        return None


def live_lengths(rot: Rotations, groups: bool) -> set:
    """The lengths of the rotations that join the periods (`periodic`, `turning`): their lcm is
    the period of everything, what an outer loop of inner loops too short to measure repeats
    with."""
    return {k for _, k in rot.periodic()} | ({d for _, d in rot.turning()} if groups else set())


def outer_period(rotations: list, n: int, whole: int) -> int:
    """The period of an outer loop's iterations when its inner loop runs `n` times, from
    `Rotations.outer_rotations`; `whole` (the period of everything) for an inner loop of fewer
    than 2 iterations, whose boundary iterations are all of it."""
    if n < 2:
        return whole
    parts = [1] + [k if a is None or b is None else k // math.gcd(k, (a * n + b) % k) for k, a, b in rotations]
    return math.lcm(*parts)
