"""The trip-count argument's numbers (`check._Bounds`) against a model of what a task's
situation is: the kinds of the tasks within `W` of it (docs/design.md, "For every trip count").

A run of an outer loop of `m` iterations around an inner loop of `n` tasks is one stream of
`m * n` tasks. A task's kind is where it stands: among the `F = R - 1` tasks of the fill or of
the drain (and which), the first or the last task of its inner loop, and, when a test singles
out the first or the last outer iteration, whether it belongs to one; and its state, the
residue `tick % k` of a counter carried across both loops (one step a task, `step` more an
outer iteration: its period in the inner loop is `k`, in the outer one `k / gcd(k, n + step)`;
`k = 1` is nothing rotating with a period, `L = 1`). Two tasks whose neighbourhoods hold the
same kinds behave alike, so a set of runs proves a longer run when every situation of the
longer run stands in one of them. The model checks the counts the check runs for loops of
run-time trip count (every count up to the bounds, but for the subsumed ones) and the one
representative run of a long static kernel, against every run of up to 40 outer iterations of
up to 30 tasks (30 x 24 with a period)."""

from __future__ import annotations

import functools

import pytest

from pto_transpile.soundness.check import _Bounds

OUTER, INNER = ("outer",), ("inner",)


@functools.cache
def _situations(m: int, n: int, ring: int, edged: bool, k: int = 1, step: int = 0) -> frozenset[tuple]:
    fill, window, total = ring - 1, ring, m * n

    def kind(q: int):
        if q < 0 or q >= total:
            return None
        return (q if q < fill else None, total - 1 - q if total - 1 - q < fill else None, q % n == 0,
                q % n == n - 1, edged and q < n, edged and q >= total - n, (q + step * (q // n)) % k)

    kinds = [kind(q) for q in range(-window, total + window)]  # task q's kind is kinds[q + window]
    return frozenset(tuple(kinds[p:p + 2 * window + 1]) for p in range(total))


def _bounds(ring: int, edged: bool) -> _Bounds:
    return _Bounds(ring=ring, period=1, zone=2 * ring - 1, inner_period=1,
                   pairs={} if edged else {OUTER: INNER}, edged=frozenset({OUTER} if edged else ()))


def _periodic_bounds(ring: int, edged: bool, k: int, step: int) -> _Bounds:
    """The numbers for the counter `tick % k`: what one outer iteration moves it by is
    `1 * n + step` (`Rotations.outer_rotations`)."""
    return _Bounds(ring=ring, period=k, zone=2 * ring - 1, inner_period=k, rotations={OUTER: [(k, 1, step)]},
                   whole=k, edged=frozenset({OUTER} if edged else ()))


def _dynamic_runs(b: _Bounds) -> set[tuple[int, int]]:
    """The (outer, inner) counts the check runs for two loops of run-time trip count."""
    return {(m, n) for n in range(b.inner + 1) if not b.subsumed(n, False)
            for m in range(b.outer(n, OUTER) + 1)
            if not b.subsumed(m, True, n, OUTER) and not b.held_by_pair(m, n, OUTER) and m and n}


def _static_run(b: _Bounds, m: int, n: int) -> tuple[int, int]:
    """The one run of a long static kernel of `m` outer iterations of `n` tasks."""
    inner = b.inner_representative(n, m, OUTER) if OUTER in b.pairs else b.representative(n, False)
    return b.representative(m, True, inner, OUTER), inner


@pytest.mark.parametrize("edged", [False, True], ids=["alike", "first or last tested"])
@pytest.mark.parametrize("ring", [2, 3, pytest.param(4, marks=pytest.mark.campaign)])  # ring 4: campaign
def test_the_runs_hold_every_situation_of_every_longer_run(ring, edged):
    b = _bounds(ring, edged)
    runs = _dynamic_runs(b)
    held = set().union(*(_situations(m, n, ring, edged) for m, n in runs))
    for m in range(1, 41):
        for n in range(1, 31):
            real = _situations(m, n, ring, edged)
            assert real <= held, ("dynamic", m, n)
            assert real <= _situations(*_static_run(b, m, n), ring, edged), ("static", m, n, _static_run(b, m, n))


@pytest.mark.parametrize("edged", [False, True], ids=["no edge test", "first or last tested"])
@pytest.mark.parametrize("ring, k, step", [(2, 2, 0), (2, 3, 1), (3, 2, 1), (3, 3, 0), (3, 4, 2)])
def test_the_runs_hold_every_situation_of_a_counter_with_a_period(ring, k, step, edged):
    b = _periodic_bounds(ring, edged, k, step)
    runs = _dynamic_runs(b)
    held = set().union(*(_situations(m, n, ring, edged, k, step) for m, n in runs))
    for m in range(1, 31):
        for n in range(1, 25):
            real = _situations(m, n, ring, edged, k, step)
            assert real <= held, ("dynamic", m, n)
            run = _static_run(b, m, n)
            assert real <= _situations(*run, ring, edged, k, step), ("static", m, n, run)


def test_alike_outer_iterations_take_two_of_z_plus_w_plus_two_tasks():
    b = _bounds(4, False)
    assert _static_run(b, 32, 256) == (2, 13)
    assert _static_run(b, 32, 12) == (3, 12)  # Z + W + 1: no task out of every boundary's reach
    assert _static_run(_bounds(4, True), 32, 256) == (4, 15)
    assert len(_dynamic_runs(b)) < len(_dynamic_runs(_bounds(4, True)))


def test_the_model_finds_the_runs_that_were_missing():
    # the counts before: an outer loop with a first-or-last test at 3 iterations holds no two
    # steady iterations side by side; two alike iterations of Z + W + 1 tasks hold no task
    # out of every boundary's reach
    b = _bounds(4, True)
    assert not _situations(32, 256, 4, True) <= _situations(3, 15, 4, True)
    assert not _situations(32, 256, 4, False) <= _situations(2, 12, 4, False)
    assert _situations(32, 256, 4, False) <= _situations(2, 13, 4, False)
    assert b.outer(15, OUTER) == 4
