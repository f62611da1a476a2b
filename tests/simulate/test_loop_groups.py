"""The emulator names each op by its stage's function, so the figures of a pipeline loop are those
of the stage functions it calls; two loops that call the same ones cannot be told apart that way.
Each got the figures of both (study ux2: two loops of 2 tasks a block each reported `4 x 663 ...
the loop took 3094 cycles`, twice, in a run of 3950): they are now one view, titled as both."""

from __future__ import annotations

from types import SimpleNamespace

from pto_transpile.simulate.pipeview import LoopView, loop_groups


def _kernel(*loops: list[str]):
    return SimpleNamespace(loops=[SimpleNamespace(stages=[SimpleNamespace(func=f) for f in fns]) for fns in loops])


def test_loops_of_their_own_stage_functions_are_apart():
    assert loop_groups(_kernel(["mm", "act"], ["mm2", "act2"])) == [((0,), ["mm", "act"]), ((1,), ["mm2", "act2"])]


def test_loops_calling_the_same_stage_function_are_one_view():
    groups = loop_groups(_kernel(["mm", "act"], ["pre", "post"], ["mm", "store"]))
    assert groups == [((0, 2), ["mm", "act", "store"]), ((1,), ["pre", "post"])]
    assert LoopView(0, groups[0][1], indexes=groups[0][0]).title == \
        "pipeline loops 0 and 2 (mm, act, store), together: they call the same stage functions"
    assert LoopView(1, groups[1][1], indexes=groups[1][0]).title == "pipeline loop 1 (pre, post)"


def test_a_kernel_without_loops_is_one_view_of_every_stage():
    assert loop_groups(_kernel()) == [((0,), [])]
