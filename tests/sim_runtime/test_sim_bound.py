"""The bound of a pipeline loop, read off a timeline: N x beat + fill + drain, and the gaps."""

import pytest

from sim_runtime.bound import idle_gaps, loop_bound
from sim_runtime.timeline import Span, Timeline, lanes, union_length


def op(core, pipe, start, end, stage, task, fn):
    return Span("op", 0, core, "x", start, end, pipe=pipe, stage=stage, task=task, stage_fn=fn)


def stage(core, start, end, number, task, fn):
    return Span("stage", 0, core, fn, start, end, stage=number, task=task, stage_fn=fn)


def two_stage_timeline(cube: int, vector: int, n: int, gap: int = 0) -> Timeline:
    """A perfect C -> V pipeline: the cube does stage 1 of iteration i while the vector core
    does stage 2 of i - 1; `gap` idle cycles after each cube stage."""
    t = Timeline()
    vector_free = 0
    for i in range(n):
        c0 = i * (cube + gap)
        t.add(op("b0.AIC", "M", c0, c0 + cube, 1, i, "s1"))
        t.add(stage("b0.AIC", c0, c0 + cube, 1, i, "s1"))
        v0 = max(c0 + cube, vector_free)
        vector_free = v0 + vector
        t.add(op("b0.AIV0", "V", v0, v0 + vector, 2, i, "s2"))
        t.add(stage("b0.AIV0", v0, v0 + vector, 2, i, "s2"))
    return t


def test_a_cube_bound_pipeline_reaches_its_bound():
    b = loop_bound(two_stage_timeline(cube=100, vector=60, n=5), ["b0.AIC", "b0.AIV0"])
    assert b.bounding.core == "b0.AIC" and b.bounding.kind == "cube"
    assert (b.iterations, b.beat, b.fill, b.drain) == (5, 100, 0, 60)
    assert b.bound == 5 * 100 + 0 + 60 == b.actual and b.percent == pytest.approx(100)
    assert b.gaps == []
    assert b.summary().startswith("cube-bound (b0.AIC, busiest pipe M), 100% of the bound; b0.AIV0 idles")


def test_gaps_of_the_bounding_core_are_time_lost():
    b = loop_bound(two_stage_timeline(cube=100, vector=60, n=5, gap=20), ["b0.AIC", "b0.AIV0"])
    assert b.gaps == [(100 + 120 * i, 120 + 120 * i) for i in range(4)]
    assert b.actual == b.bound + 4 * 20
    assert b.percent == pytest.approx(100 * 560 / 640)


def test_a_vector_bound_pipeline_has_a_fill():
    b = loop_bound(two_stage_timeline(cube=50, vector=90, n=4), ["b0.AIC", "b0.AIV0"])
    assert b.bounding.core == "b0.AIV0" and b.bounding.kind == "vector"
    assert (b.fill, b.drain, b.beat) == (50, 0, 90)
    assert b.bound == b.actual == 50 + 4 * 90


def test_only_the_loops_stages_count():
    t = two_stage_timeline(cube=100, vector=60, n=3)
    t.add(op("b0.AIV0", "V", 1000, 5000, 3, 0, "other_loop"))
    t.add(stage("b0.AIV0", 1000, 5000, 3, 0, "other_loop"))
    assert loop_bound(t, ["b0.AIC", "b0.AIV0"], {"s1", "s2"}).bounding.core == "b0.AIC"
    assert loop_bound(t, ["b0.AIC", "b0.AIV0"]).bounding.core == "b0.AIV0"
    assert loop_bound(t, ["b0.AIC"], {"nothing"}) is None


def test_interval_helpers():
    assert union_length([(0, 10), (5, 20), (30, 40)]) == 30
    assert idle_gaps([(0, 10), (5, 20), (30, 40), (35, 50)]) == [(20, 30)]
    spans = [Span("stage", 0, "c", "s", a, b) for a, b in [(0, 10), (5, 15), (10, 20), (12, 14)]]
    assert lanes(spans) == [0, 1, 0, 2]


def test_each_core_is_counted_over_its_own_iterations():
    # a block of a per-core range runs its share: one iteration of 100 cycles on b1 was reported as 50
    # a "per iteration", divided by block 0's two (study ux2)
    t = two_stage_timeline(cube=100, vector=60, n=2)
    t.add(op("b1.AIC", "M", 0, 100, 1, 0, "s1"))
    t.add(stage("b1.AIC", 0, 100, 1, 0, "s1"))
    b = loop_bound(t, ["b0.AIC", "b0.AIV0", "b1.AIC"])
    b1 = next(c for c in b.cores if c.core == "b1.AIC")
    assert (b1.iterations, b.per_iteration(b1)) == (1, 100)
    assert "b1.AIC: busy 100 cycles per iteration (M 100) over its 1 iteration(s)" in "\n".join(b.detail())
    assert "b0.AIC: busy 100 cycles per iteration (M 100), idle" in "\n".join(b.detail())
