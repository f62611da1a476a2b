"""A barrier and the loop after it under a test of a scalar kernel parameter (`if flag > 0:`):
refused as a test "that may go another way on another block", though the arguments of a launch
reach every block and core alike, so every core reaches the barrier or none does (probe h227).
A parameter the kernel binds again, a test mixing in the block index, and a barrier alone under
the test (the loop after it reading unordered where the test fails) are still refused."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

GOLDEN = (Path(__file__).parents[2] / "golden" / "two_loops_vector_first" / "input.py").read_text(encoding="utf-8")
#: the second loop's body, as the golden file has it
LOOP2 = GOLDEN[GOLDEN.index("    for j in pl.range(0, N):\n") + len("    for j in pl.range(0, N):\n"):
               GOLDEN.index("\n\n\ndef reference")] + "\n"
BARRIER = "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"
KERNEL = edited(GOLDEN, [
    ("preload=[0, 2]", "preload=[1, 2]"),
    ("    x: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],", "    x: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],"),
    ("    mid: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],\n    out: pl.Tensor[[N * TILE, TILE], pl.DT_FP32],\n",
     "    mid: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n"
     "    flag: pl.DT_INT32,\n"),
    ("    for i in pl.range(0, N):",
     "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    num_cores = pl.get_block_num()\n"
     "    for i in pl.range(core_id, N, num_cores):"),
    (BARRIER + "\n    # loop 2: pipelined, upstream stages run 2 iterations ahead on each core\n"
     "    for j in pl.range(0, N):\n" + LOOP2,
     "    if flag > 0:\n    " + BARRIER + "        for j in pl.range(core_id, N, num_cores):\n"
     + "".join("    " + line + "\n" for line in LOOP2.splitlines())),
])
SHAPES = {"x": (128, 32), "mid": (128, 32), "out": (128, 32)}


@functools.cache
def _proven():
    return transpile(KERNEL, path="k.py")


@pytest.mark.parametrize(("flag", "blocks"), [(1, 2), (0, 3), (2, 1), (1, 3)])
def test_a_barrier_under_a_test_of_a_parameter_is_proven_and_verified(flag, blocks):
    result = _proven()
    assert error_messages(result) == []
    report = verify(KERNEL, result.code, "two_loops_kernel", shapes=SHAPES, scalars={"flag": flag}, block_dim=blocks)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("flag", [0, 1])
def test_a_parameter_named_again_by_the_test_itself_is_the_same_everywhere_too(flag):
    """`if (m := flag) > 0:`: the name the test binds was read as one of the kernel's own, which may
    hold another value on another block (probe h235); it is bound to the argument, read."""
    text = edited(KERNEL, [("    if flag > 0:\n", "    if (m := flag) > 0:\n")])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    report = verify(text, result.code, "two_loops_kernel", shapes=SHAPES, scalars={"flag": flag}, block_dim=3)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("flag", [1, 2])
def test_a_residue_of_the_parameter_is_the_same_everywhere_too(flag):
    """`if flag % 2 == 1:`: the run follows the residue as a value of its own, which was taken as
    one that may differ between blocks (probe h228); it is still the launch's argument alone."""
    text = edited(KERNEL, [("    if flag > 0:\n", "    if flag % 2 == 1:\n")])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    report = verify(text, result.code, "two_loops_kernel", shapes=SHAPES, scalars={"flag": flag}, block_dim=2)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize(("old", "new"), [
    ("    core_id = pl.get_block_idx() // pl.get_subblock_num()\n",
     "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    flag = flag + core_id\n"),
    ("    if flag > 0:\n", "    if flag > core_id:\n"),
    ("    if flag > 0:\n", "    if (m := core_id) > 0:\n"),
])
def test_a_test_that_may_differ_between_blocks_is_still_refused(old, new):
    """With a help of its own: it was the help for loops of run-time trip count (probe h230)."""
    [d] = [d for d in transpile(edited(KERNEL, [(old, new)]), path="k.py").diagnostics if d.is_error]
    assert "a test that may go another way on another block" in d.message, d.message
    assert d.hint.startswith("Put the barrier outside the `if`, where every core it waits for reaches it"), d.hint


def test_a_barrier_alone_under_the_test_is_refused():
    """Where the test fails, the second loop reads what the first wrote with no barrier between."""
    guarded = "    if flag > 0:\n    " + BARRIER
    alone = edited(KERNEL, [(guarded, guarded + "    if True:\n")])
    messages = error_messages(transpile(alone, path="k.py"))
    assert any("no `pl.system.sync_all()` of the cores accessing it separates" in m for m in messages), messages


def test_a_second_loop_on_one_block_is_not_told_to_return_early():
    """`if core_id == 0:` around the second loop: the help was to return early instead, which the
    check follows only before any loop, sync or GM write, so that form was refused too."""
    text = edited(KERNEL, [("    if flag > 0:\n    " + BARRIER, BARRIER + "    if core_id == 0:\n"),
                           ("        for j in pl.range(core_id, N, num_cores):", "        for j in pl.range(0, N):")])
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "under `if core_id == 0:`" in message and "after a loop of the kernel, a `return` is not followed" in message


@pytest.mark.parametrize(("test", "reaches"), [("flag > 0", False), ("x.shape[0] > 0", False),
                                               ("cfg.n > 0", True), ("x[0, 0] > 0", True), ("lst[0] == 1", True),
                                               ("other.n > 0", False)])
def test_a_field_or_item_of_an_argument_is_not_the_launch_s(test, reaches):
    """A field or an item of an argument may have been changed per block (`cfg.n = core_id`) or be
    GM another block writes: a test of it is not taken as going the same way everywhere."""
    import libcst as cst

    from pto_transpile.soundness.pysubset import _reaches_into_arguments

    assert _reaches_into_arguments(cst.parse_expression(test), frozenset({"flag", "x", "cfg", "lst"})) is reaches


def test_a_barrier_under_a_test_of_a_run_time_size_is_told_to_test_a_parameter():
    """`if x.shape[0] > 64:` of a `pl.DYNAMIC` size no loop counts: undecided, and told to count a
    block's tasks from 0 (probe h230), which has nothing to do with it. The help names a scalar
    parameter, the form the test above proves."""
    result = transpile(edited(KERNEL, [("    if flag > 0:\n", "    if x.shape[0] > 64:\n")]), path="k.py")
    (d,) = [d for d in result.diagnostics if d.code == "PTO061"]
    assert "a tensor's size known only at run time is followed as a symbol" in d.message
    assert "scalar parameter the host computes from the size" in d.hint and "count the block's tasks" not in d.hint
