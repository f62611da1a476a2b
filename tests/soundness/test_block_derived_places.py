"""GM written at a place computed from the block index other than by scaling it (`core_id % 8`,
`core_id // 2`, `min(core_id, 1)`). The check follows block 0 and judges other blocks by where
the accesses move with the block; such a value is a variable of its own, which no rule judged,
so two blocks that take one value (blocks 0 and 8, 0 and 1) went unseen, and so did the
delayed stages that cross a `sync_all` between blocks exchanging rows. A probe found each
kernel accepted and wrong on the emulator at two blocks or more; each is refused now."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import error_messages
from pto_transpile import transpile

WORDS = "is placed by a value computed from the block index other than by scaling it"


@pytest.mark.parametrize("name, tensor", [("barrier_in_loop_derived_slot.py", "ws"),
                                          ("outer_barrier_crossed_by_drain.py", "ws"),
                                          ("cube_store_pair_slot.py", "mid")])
@pytest.mark.parametrize("preload", [1, 2])
def test_a_written_tensor_placed_by_a_derived_block_value_is_refused(name, tensor, preload):
    (message,) = error_messages(transpile(kernel(name), path=name, preload=preload))
    assert f"`{tensor}` is written, and `" in message and WORDS in message, message


def test_the_block_index_times_a_constant_still_places_them():
    text = kernel("cube_store_pair_slot.py")
    assert text.count("core_id // 2") == 1
    assert error_messages(transpile(text.replace("core_id // 2", "core_id"), path="k.py", preload=1)) == []


@pytest.mark.emulator
@pytest.mark.parametrize("blocks, verdict", [(1, "ok"), (2, "race")])
def test_the_emulator_races_from_two_blocks_on(blocks, verdict):
    from sim_runtime.verify import verify

    name = "barrier_in_loop_derived_slot.py"
    text = kernel(name)
    code = transpile(text, path=name, preload=1, _skip_rules=["PTO061"]).code
    assert code is not None
    report = verify(text, code, "pipeline_demo_kernel", path=name, block_dim=blocks)
    assert [row.verdict for row in report.rows] == ["ok", verdict], [(r.verdict, r.message) for r in report.rows]
