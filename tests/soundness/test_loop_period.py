"""The period of one loop's own iterations (`Rotations.loop_period`): what its iterations move,
each rotation repeating every `k / gcd(k, step)` iterations; a step it cannot know counts as
the whole rotation."""

from __future__ import annotations

import pytest

from pto_transpile.soundness.rotations import Rotations, outer_period

INNER, OUTER = ("loop", 1), ("loop", 2)
TICK = ("carried", "tick")


def _uniform() -> Rotations:
    uni = Rotations()
    uni.loop_facts[INNER] = (("size", "n"), frozenset({"tick"}), 1)
    uni.loop_facts[OUTER] = (("size", "m"), frozenset({"tick", "q"}), None)  # a per-core loop
    uni.steps[(INNER, TICK)] = 1
    return uni


@pytest.mark.parametrize("form, k, period", [
    (((INNER, 1),), 3, 3),  # ki % 3
    (((INNER, 2),), 4, 2),  # (2 * ki) % 4
    (((INNER, 3),), 3, 1),  # (3 * ki) % 3: the same every iteration
    (((TICK, 1),), 3, 3),  # tick % 3, tick stepping by 1
    (((OUTER, 1),), 3, 1),  # qi % 3: fixed while the inner loop runs
    (((("derived", 7, ()), 1),), 5, 5),  # a value it cannot follow: the whole rotation
])
def test_a_residue_repeats_by_its_step(form, k, period):
    uni = _uniform()
    uni.residues.add((form, k))
    assert uni.loop_period(INNER) == period


def test_a_counter_of_unknown_step_and_a_per_core_loop_count_whole():
    uni = _uniform()
    uni.residues.add((((TICK, 1),), 4))
    uni.residues.add((((OUTER, 1),), 3))
    # the outer loop carries `tick` but its step there was not measured; it steps by the
    # block count, which the run does not know
    assert uni.loop_period(OUTER) == 12


@pytest.mark.parametrize("depth, moves, period", [(4, 2, 2), (4, 1, 4), (3, 3, 1), (2, 0, 1), (4, None, 4)])
def test_a_tile_group_repeats_by_its_moves_per_iteration(depth, moves, period):
    uni = _uniform()
    group = type("Group", (), {"depth": depth})()
    uni.rotated(0, group, "g")
    uni.group_moves[(INNER, (0, id(group)))] = moves
    assert uni.loop_period(INNER) == period
    # the generated kernel leaves groups to the serial kernel
    assert uni.loop_period(INNER, groups=False) == 1


def test_an_outer_loop_moves_by_n_inner_steps_and_its_own_part():
    # measured with 3 inner iterations: `tick` moved 3 by the outer iteration, 1 by an inner
    # one; `q` moved 1 by the outer body alone; a group of 4 slots moved twice by each inner
    # iteration and once more by the outer body
    uni = Rotations()
    uni.loop_facts[OUTER] = (("size", "m"), frozenset({"tick", "q"}), 1)
    uni.loop_facts[INNER] = (("size", "n"), frozenset({"tick"}), 1)
    uni.loop_parents.update({OUTER: None, INNER: OUTER})
    uni.loop_lengths.update({OUTER: 3, INNER: 3})
    uni.steps.update({(INNER, TICK): 1, (OUTER, TICK): 3, (OUTER, ("carried", "q")): 1})
    uni.residues.update({(((TICK, 1),), 3), (((("carried", "q"), 1),), 2), (((INNER, 1),), 5)})
    group = type("Group", (), {"depth": 4})()
    uni.rotated(0, group, "g")
    uni.group_moves.update({(INNER, (0, id(group))): 2, (OUTER, (0, id(group))): 7})
    (rotations,) = uni.outer_rotations(groups=True).values()
    assert sorted(rotations) == sorted([(3, 1, 0), (2, 0, 1), (5, 0, 0), (4, 2, 1)])
    # n = 3: tick % 3 still (1), q % 2 every 2, ki % 5 restarts (1), the group moves 7 (4)
    assert outer_period(rotations, 3, 60) == 4
    # n = 4: tick moves 4 (3), the group 9 (4)
    assert outer_period(rotations, 4, 60) == 12
    # an inner loop of fewer than 2 iterations: the whole period
    assert outer_period(rotations, 1, 60) == 60


def test_a_group_moved_under_a_test_followed_both_ways_repeats_nothing():
    # its cursor is unknown from then on: every pick may be any slot, in every iteration
    uni = _uniform()
    group = type("Group", (), {"depth": 4})()
    uni.rotated(0, group, "g")
    uni.rotated(0, group, "g", lost=True)
    uni.rotated(0, group, "g")
    assert uni.loop_period(INNER) == 1 and uni.group_depths == {}
    assert uni.unsteady([{}, {(0, id(group)): 1}, {}, {(0, id(group)): 1}, {}]) is None
