"""A barrier of the vector cores only between two loops, the second loading on the cube at a fixed
place what the first stored (probe h252). Refused, rightly (forced, it races at 1 to 3 blocks), but
for strides: the load at a place no loop moves was told to keep the store's stride, and moved so it
was refused again, for the barrier. The refusal names the two loops and the barrier of every core,
with which the kernel is proven and runs as the serial one."""

from __future__ import annotations

from pathlib import Path

from helpers import error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

TEXT = (Path(__file__).parent / "kernels" / "h252_aiv_only_barrier_between_loops.py").read_text(encoding="utf-8")
AIV_ONLY = "    with pl.section_vector():\n        pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)\n"
SHAPES = {"a": (96, 32), "mid": (96, 32), "out": (96, 32)}


def test_the_refusal_names_the_two_loops_and_the_barrier():
    (message,) = error_messages(transpile(TEXT, path="k.py"))
    assert "`mid` is accessed by two loops that no `pl.system.sync_all()` of the cores accessing it" in message
    assert "pl.load(cur_w, mid, [0, 0])" in message and "stride" not in message, message
    assert "sync_all(core_type=pl.SyncCoreType.MIX)" in message, message


def test_the_barrier_of_every_core_makes_the_kernel_proven():
    assert AIV_ONLY in TEXT
    fixed = TEXT.replace(AIV_ONLY, "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n")
    result = transpile(fixed, path="k.py")
    assert error_messages(result) == []
    for blocks in (1, 3):
        report = verify(fixed, result.code, "kernel", path="k.py", shapes=SHAPES, block_dim=blocks)
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_a_barrier_under_a_test_of_a_parameter_is_shown_with_the_value_that_skips_it():
    """Probe h253: the barrier of every core under `if flag > 0:` was asked for as if missing; the
    refusal names the value of the run that skips it."""
    text = TEXT.replace(AIV_ONLY, "    if flag > 0:\n        pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n") \
        .replace("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
                 "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    flag: pl.DT_INT32,\n")
    assert text.count("flag") == 2
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "accessed by two loops" in message and message.endswith("(shown with `flag` = 0)"), message


def test_two_inner_loops_of_one_pipeline_loop_are_not_called_two_loops():
    """Probe h253: the store of a stage's inner loop meeting the load of another stage's inner
    loop, both in one pipeline loop, was refused as two loops no barrier separates, and a barrier
    between the inner loops changed nothing; the refusal names the stride again."""
    text = kernel_text(Path(__file__).parent / "kernels" / "h253_inner_loops_of_one_pipeline_loop.py")
    (message,) = error_messages(transpile(text, path="k.py"))
    assert "do not stay within one stride of each other" in message and "two loops" not in message, message
