"""A counter carried across a loop of run-time trip count keeps different iterations apart by
its step per iteration, not by one: `t = t + 1` in a static inner loop of 2 tasks steps it by 2
per iteration of the outer loop, so the two tiles of an iteration (`t` and `t + 1`) are within
one stride, as `q * 2 + r` is. It was refused ("reaches past the stride") although the same
kernel written with `q * 2 + r` was proven (a probe's false refusal)."""

from __future__ import annotations

from test_block_values import TILED, _findings, _tiled_verdicts

from helpers import edited

LOOP = """    for i in pl.range(core_id, n_blocks, num_cores):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)
"""


def _counted(inner: int, step: int) -> str:
    """The tiles counted by `t`, `inner` tasks per iteration of a loop over `n_blocks // inner`,
    the counter stepping by `step` per task."""
    return edited(TILED, [(LOOP, f"""    t = 0
    for q in pl.range(0, n_blocks // {inner}):
        for r in pl.range(0, {inner}):
            i = t
            with pl.section_cube():
                project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
            with pl.section_vector():
                finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)
            t = t + {step}
""")])


def test_a_counter_stepping_once_per_task_of_a_static_inner_loop_is_proven():
    for inner in (2, 3):
        text = _counted(inner, 1)
        assert _findings(text) == [], inner
        for tiles in (6, 12):  # 6: 3 and 2 outer iterations; 12: 6 and 4
            rows = (32 * tiles, 32)
            assert _tiled_verdicts(text, 1, a=rows, out=rows) == ["ok", "ok"], (inner, tiles)


def test_tiles_of_a_counter_reaching_past_its_step_are_refused():
    # two tasks per iteration, the counter stepping 1 per task, and a store one tile further
    # than the task's: the iteration's tiles reach three rows of tiles, past its step of two
    text = edited(_counted(2, 1), [("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
                                     "    pl.store(out, res, [(i + 1) * BLOCK + sub_id * HALF, 0])\n"
                                     "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n")])
    ((code, message),) = _findings(text)
    assert code == "PTO061" and "do not stay within one stride of each other" in message, message
