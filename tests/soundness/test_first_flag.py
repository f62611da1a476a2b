"""A flag that singles out the first iteration (`first = True` before the loop, `first = False`
in it), passed to a stage, is proven for every trip count: a value the body reads before it
binds it may differ between the first iteration's start and the second's, and must stay the
same from then on; the first iteration is then singled out as by `ki == 0`. It was refused
("`first` carries a value from one iteration to the next"). The transform also passed such a
flag to a delayed stage as the name itself, not through the ctx ring: a name bound to two
constants was taken for a compile-time constant, and the check showed FlashAttention's softmax
stage receiving `first` = False for its first task."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime import verify

ROOT = Path(__file__).parents[2]
TILED = (ROOT / "examples" / "tiled_scale.py").read_text()
FLAG = [
    ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):\n",
     "def finish(i, first, sub_id, scale, out, proj_vec_db, res_db):\n"),
    ("    epilogue(res, proj, scale)\n",
     "    if first:\n        pl.muls(res, proj, 2.0)\n    else:\n        epilogue(res, proj, scale)\n"),
    ("    for i in pl.range(core_id, n_blocks, num_cores):\n",
     "    first = True\n    for i in pl.range(core_id, n_blocks, num_cores):\n"),
    ("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
     "            finish(i, first, sub_id, tiling.scale, out, proj_vec_db, res_db)\n        first = False\n"),
]


def _errors(result) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in result.diagnostics if d.severity != "note"]


def _tiled_verdicts(text: str) -> set[str]:
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    verdicts = set()
    for blocks, rows in ((1, 160), (2, 96), (3, 224)):
        report = verify(text, code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                        scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=blocks)
        verdicts |= {row.verdict for row in report.rows}
    return verdicts


def test_a_first_iteration_flag_is_proven_travels_in_the_ctx_ring_and_runs_as_the_serial_kernel():
    text = edited(TILED, FLAG)
    result = transpile(text, path="k.py")
    assert _errors(result) == []
    assert "finish(_pl_ctx_neg1.i, _pl_ctx_neg1.first," in result.code
    assert _tiled_verdicts(text) == {"ok"}


@pytest.mark.parametrize("start, step", [
    ("0", "min(first + 1, 2)"),  # 0, 1, 2, 2, ...: settles after two iterations
    ("1", "first * 2"),  # doubles every iteration
])
def test_a_value_that_changes_past_the_second_iteration_is_still_refused(start, step):
    text = edited(TILED, FLAG + [("    first = True\n", f"    first = {start}\n"),
                                 ("        first = False\n", f"        first = {step}\n")])
    ((code, message),) = _errors(transpile(text, path="k.py"))
    assert code == codes.PIPELINE_NOT_PROVEN and "`first` carries a value from one iteration" in message, message


@pytest.mark.emulator
@pytest.mark.campaign  # 10 s: the proof for every size, then the emulator
def test_flash_attention_with_its_first_kv_tile_flagged_is_proven_and_bit_identical():
    text = edited((ROOT / "examples" / "flash_attention_dn.py").read_text(), [
        ("def compute_p(ki, tick,", "def compute_p(first, tick,"),
        ("    back = p_back_db.next()\n    if ki == 0:\n", "    back = p_back_db.next()\n    if first:\n"),
        ("        for ki in pl.range(0, kv_tiles):\n",
         "        first = True\n        for ki in pl.range(0, kv_tiles):\n"),
        ("                compute_p(ki, tick, q_count,", "                compute_p(first, tick, q_count,"),
        ("            tick = tick + 1\n", "            tick = tick + 1\n            first = False\n"),
    ])
    result = transpile(text, path="fa.py")
    assert _errors(result) == []
    report = verify(text, result.code, "flash_attention_dn",
                    shapes={"q": (256, 128), "k": (384, 128), "v": (384, 128), "o": (256, 128)}, block_dim=2)
    serial, piped = report.rows
    assert (serial.verdict, piped.verdict) == ("ok", "ok")
    assert set(piped.max_diff.values()) == {0.0}, piped.max_diff  # bit-identical


def test_a_value_changed_every_iteration_of_a_loop_the_runs_give_two_iterations_is_refused():
    # the per-core loop over a static count gives block 0 at most two iterations in the runs the
    # check makes: a change between its first two starts alone would pass for a flag. A flag is
    # a name the body binds once, to a literal, by a statement of its own block
    import test_trip_counts

    text = test_trip_counts._nested_struct_per_core("n2 = n2 * 2 + 1")
    text = edited(text, [("    core_id = pl.get_block_idx() // pl.get_subblock_num()\n",
                          "    n2 = 0\n    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"),
                         ("c2(b * K + k, q,", "c2(b * K + k + n2 * 0, q,")])
    ((code, message),) = _errors(transpile(text, path="k.py"))
    assert code == codes.PIPELINE_NOT_PROVEN and "`n2` carries a value from one iteration" in message, message
