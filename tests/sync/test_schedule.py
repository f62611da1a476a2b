"""The delay rule and the ring depth."""

import pytest

from pto_transpile.sync.schedule import compute_delays, schedule_for

CV = ["cube", "vector"]


@pytest.mark.parametrize("n", range(1, 9))
@pytest.mark.parametrize("p", range(1, 5))
def test_alternating_chain_matches_closed_form(n, p):
    sections = [CV[i % 2] for i in range(n)]
    assert compute_delays(sections, p) == tuple((i // 2) * p + (i % 2) for i in range(n))


@pytest.mark.parametrize("p, delays, depth", [(1, (0, 1, 1, 2), 3), (2, (0, 1, 2, 3), 4), (3, (0, 1, 3, 4), 5)])
def test_four_stage_demo_delays_and_depth(p, delays, depth):
    s = schedule_for(["cube", "vector", "cube", "vector"], p)
    assert s.delays == delays
    assert s.depth == depth == max(delays) + 1
    assert s.drain_beats == depth - 1


def test_two_stage_chain_ignores_preload():
    assert {schedule_for(CV, p).delays for p in range(1, 6)} == {(0, 1)}


def test_vector_first_chain():
    assert compute_delays(["vector", "cube", "vector"], 2) == (0, 1, 2)


def test_serial_mode_has_no_ring():
    s = schedule_for(["cube", "vector", "cube", "vector"], 0)
    assert s.serial and s.delays == (0, 0, 0, 0) and s.depth == 1
