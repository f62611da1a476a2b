"""`if my_n == 0: return` at a kernel's top level, `my_n` a block's share of the tiles: the blocks
with no tile do nothing from there on, on all their cores alike (the test compares values the same
on the three cores of a block), so they neither race nor leave a set behind. It was refused as a
return "under a condition the check cannot decide" (a hand-pipelined kernel: warned about, PTO077,
with the hint to make things static). Like `if core_id >= n: return`, it is followed now as the
blocks that go on, and a barrier of every block after it is refused: a block that returned never
reaches it."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import edited, error_messages, hand_pipelined_over_blocks
from pto_transpile import transpile
from sim_runtime import verify

SHARE = "    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n"
RETURN = SHARE + "    if my_n == 0:\n        return\n"


def _hand_codes(text: str) -> list[str]:
    return [d.code for d in transpile(text, path="k.py").diagnostics if d.code in ("PTO068", "PTO077")]


@pytest.mark.parametrize(("test", "rows"), [
    ("my_n == 0", 32),  # one tile on three blocks: two of them return
    # the truth of the share (probe h186: warned about as a return the check cannot decide, while
    # `if my_n == 0: return` was followed)
    ("not my_n", 64),
])
def test_a_hand_pipelined_kernel_returning_on_an_empty_share_is_proven(test, rows):
    text = edited(hand_pipelined_over_blocks(), [(SHARE, SHARE + f"    if {test}:\n        return\n")])
    assert _hand_codes(text) == []
    report = verify(text, {"as written": text}, "hand_pipelined_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                    block_dim=3)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows


def test_a_barrier_after_the_return_is_not_proven():
    text = edited(hand_pipelined_over_blocks(), [
        (SHARE, RETURN),
        ("    # drain: consume the releases", "    pl.system.sync_all()\n    # drain: consume the releases")])
    assert _hand_codes(text) == ["PTO077"]


def test_a_return_after_a_store_is_not_followed():
    text = edited(hand_pipelined_over_blocks(), [
        (SHARE, SHARE + "    with pl.section_vector():\n        r0 = r_db.current()\n"
                "        pl.store(out, r0, [core_id * TILE, 0])\n    if my_n == 0:\n        return\n")])
    assert _hand_codes(text) == ["PTO077"]


#: tests/soundness/kernels/dynamic_rows.py with its tiles spread over the blocks, the blocks with none
#: returning first
PER_CORE = [("    n_tiles = a.shape[0] // TILE\n    for ki in pl.range(0, n_tiles):\n",
             "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    num_cores = pl.get_block_num()\n"
             "    n_tiles = a.shape[0] // TILE\n    my_n = (n_tiles - core_id + num_cores - 1) // num_cores\n"
             "    if my_n == 0:\n        return\n    for ki in pl.range(core_id, n_tiles, num_cores):\n")]


def test_a_pipelined_kernel_returning_on_an_empty_share_is_proven_and_runs():
    text = edited(kernel("dynamic_rows.py"), PER_CORE)
    for preload in (1, 2):
        result = transpile(text, path="k.py", preload=preload)
        assert result.ok, error_messages(result)
        for rows, blocks in ((64, 3), (160, 2)):
            report = verify(text, result.code, "kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                            block_dim=blocks)
            assert [r.verdict for r in report.rows] == ["ok", "ok"], (preload, rows, blocks, report.rows)


def test_a_name_that_differs_between_the_cores_of_a_block_is_not_a_quiet_return():
    text = edited(hand_pipelined_over_blocks(), [
        (SHARE, SHARE + "    lone = pl.get_subblock_idx()\n    if not lone:\n        return\n")])
    assert _hand_codes(text) == ["PTO077"]
