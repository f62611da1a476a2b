"""`if n_blocks == 0: return` at the kernel's top level, before any loop, sync or GM write, with
a test the same on every core and block: where it holds, every core of every block returns having
done nothing, in the pipelined kernel too (it keeps the statement as written), so the check follows
the cores that go on, at every size. It was refused as a `return` under a condition the check
cannot decide, with a help for stages that led to PTO007 (probe h121)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

ROWS = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
LOOP = "    for i in pl.range(0, n_blocks):\n"


def _with(guard: str, before: str = "") -> str:
    return edited(ROWS, [(LOOP, before + guard + LOOP)])


@pytest.mark.parametrize("preload", [1, 2])
@pytest.mark.parametrize("test", ["n_blocks == 0", "n_blocks < 3", "a.shape[0] < 2 * BLOCK"])
def test_a_quiet_return_of_a_size_test_is_proven_and_runs_as_the_serial_kernel(test, preload):
    text = _with(f"    if {test}:\n        return\n")
    result = transpile(text, path="k.py", preload=preload)
    assert error_messages(result) == []
    for rows in (16, 32, 64, 160):  # 16 rows: no block of 32
        shapes = {"a": (rows, 32), "out": (rows, 32)}
        report = verify(text, result.code, "kern", path="k.py", shapes=shapes)
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (rows, report.rows[-1].message)


@pytest.mark.parametrize("guard", [
    # the vector cores return, the cube goes on and waits for them for ever
    "    if sub_id == 0:\n        return\n",
    # two comparisons, one may hold where the other does not
    "    if n_blocks == 0 or sub_id == 1:\n        return\n",
])
def test_a_return_that_sends_the_cores_apart_is_still_refused(guard):
    (message,) = error_messages(transpile(_with(guard), path="k.py"))
    assert "`return`" in message, message


def test_a_return_after_a_gm_write_is_still_refused_with_the_kernel_level_help():
    text = _with("    if n_blocks == 1:\n        return\n",
                 before="    with pl.section_vector():\n        pl.store(out, pl.make_tile(tile_type=pl.TileType("
                        "shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x10000), "
                        "[0, 0])\n")
    (error,) = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert "under a condition the check cannot decide" in error.message, error.message
    assert "in the kernel itself, return only at its top level, before any loop, sync or GM write" in error.hint


SCALE = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("test", ["n_blocks == 0", "n_blocks < 3"])
def test_a_quiet_return_before_a_per_core_range_holds_on_every_block(test):
    """The total count is the same on every block: where the test holds, every block returns; a
    block with no share of the tasks (64 rows on 4 blocks) goes on and runs none."""
    per_core = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
    text = edited(SCALE, [(per_core, f"    if {test}:\n        return\n" + per_core)])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    for rows, blocks in ((16, 1), (96, 3), (64, 4)):
        report = verify(text, result.code, "tiled_scale_kernel", path="k.py",
                        shapes={"a": (rows, 32), "out": (rows, 32)}, scalars={"scale": 0.5, "ApplyRelu": 1},
                        block_dim=blocks)
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (rows, blocks, report.rows[-1].message)


BARRIER = "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"


def _returns_then_barrier(test: str) -> str:
    per_core = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
    call = "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
    return edited(SCALE, [(per_core, f"    if {test}:\n        return\n" + per_core), (call, call + BARRIER)])


def test_a_return_on_the_block_count_alone_lets_a_barrier_after_it_stand():
    """`num_cores == 3` holds on every block or on none: the barrier after it is reached by all of
    them or by none (probe h123: refused as a block that returned early never arriving)."""
    text = _returns_then_barrier("num_cores == 3")
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    for blocks in (1, 2, 3, 4):
        report = verify(text, result.code, "tiled_scale_kernel", path="k.py",
                        shapes={"a": (128, 32), "out": (128, 32)}, scalars={"scale": 0.5, "ApplyRelu": 0},
                        block_dim=blocks)
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (blocks, report.rows[-1].message)


def test_a_return_on_the_block_index_before_a_barrier_is_still_refused():
    (message,) = error_messages(transpile(_returns_then_barrier("core_id >= 2"), path="k.py"))
    assert "a block that returned early" in message and "never arrives" in message, message
