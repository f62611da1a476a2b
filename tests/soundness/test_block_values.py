"""The block index and the block count are values of the run, not the numbers of block 0 of one
block. The check follows block 0 with one block, so where the kernel used them other than as a
per-core stride (an event id `num_cores + 3`, a store one block count further, a scratch tile's
address), it judged one block count only and accepted kernels the emulator shows wrong at two
blocks. They are run-time values now: a sync's event id or a tile address computed from one is
refused, and the accesses of a written tensor must move with them alike (`core_id * TILE` in
every access). The per-core forms of production kernels stay proven: `pl.range(core_id, n,
num_cores)`, tile `core_id + t * num_cores`, and its neighbour `core_id + (t - 1) * num_cores`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers import edited, hand_pipelined_over_blocks, spread
from pto_transpile import codes, transpile
from sim_runtime import verify

HAND = hand_pipelined_over_blocks()
TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
HAND_NAME = "hand_pipelined_kernel"


def _findings(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.severity != "note"]


def _hand_verdicts(text: str, tiles: int, blocks: int) -> list[str]:
    shapes = {"a": (32 * tiles, 32), "out": (32 * tiles, 32)}
    return [row.verdict for row in verify(text, text, HAND_NAME, shapes=shapes, block_dim=blocks).rows]


def _tiled_verdicts(text: str, blocks: int, **shapes) -> list[str]:
    """The emulator's verdicts (serial, pipelined) on a `tiled_scale.py` variant pipelined
    without the proof, on `blocks` blocks, with 192 rows of `a` and `out` unless `shapes` say."""
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    shapes = {"a": (192, 32), "out": (192, 32), **shapes}
    return [row.verdict for row in verify(text, code, "tiled_scale_kernel", shapes=shapes,
                                          scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=blocks).rows]


def test_an_event_id_computed_from_the_block_count_is_not_taken_for_its_value_at_one_block():
    text = edited(HAND, [
        ("        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n",
         "        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n"
         "        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=num_cores + 3)\n"),
        ("        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[(my_n + 1) % 2])\n",
         "        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[(my_n + 1) % 2])\n"
         "        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=4)\n"),
    ])
    ((code, message),) = _findings(text)
    assert code == "PTO077" and "event_id=num_cores + 3)` uses depends on a value known only at run time" in message
    assert _hand_verdicts(text, 3, 1) == ["ok", "ok"]
    assert _hand_verdicts(text, 3, 2) == ["imbalance"]  # event 5 is set and never waited for


@pytest.mark.parametrize("shifted, named", [
    ("i + 2 * num_cores - 2", "`get_block_num()`"),  # one block: no shift; two: the block's next task
    ("i + 2 * core_id", "`get_block_idx() // get_subblock_num()`"),  # block 1 stores two tasks ahead
    # computed other than by adding and scaling: a value of its own, that moves one access only
    ("i + (num_cores + 1) % 2 * 2", "a value computed from `get_block_num()`"),
    ("i + core_id % 2 * 2", "a value computed from `get_block_idx() // get_subblock_num()`"),
])
def test_a_store_moved_by_a_block_value_apart_from_the_other_accesses_is_refused(shifted, named):
    text = edited(TILED, [
        ("def project(i, a, w_slot,", "def project(i, a, out, w_slot,"),
        ("    pl.matmul(acc, left, right)\n",
         "    pl.matmul(acc, left, right)\n    pl.store(out, acc, [i * BLOCK, 0])\n"),
        ("project(i, a, w_slot,", "project(i, a, out, w_slot,"),
        ("            finish(i, sub_id,", f"            finish({shifted}, sub_id,"),
    ])
    ((code, message),) = _findings(text)
    assert code == "PTO061" and f"offset by the run-time value of {named} differently" in message, message
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    shapes = {"a": (160, 32), "out": (256, 32)}  # room for the stores past the last block
    rows = verify(text, code, "tiled_scale_kernel", shapes=shapes, scalars={"scale": 0.5, "ApplyRelu": 0},
                  block_dim=2).rows
    assert [row.verdict for row in rows] == ["ok", "race"]


@pytest.mark.parametrize("declaration, what", [
    ("            addrs=0x8000 + (pl.get_block_num() - 1) * 0x1000,\n            mutex_ids=[10, 11],",
     "the tile address `0x8000 + (pl.get_block_num() - 1) * 0x1000` depends on the run-time value of "
     "`get_block_num()`"),
    ("            addrs=0x8000,\n            mutex_ids=[10 - (pl.get_block_num() + 1) % 2 * 10, 11],",
     "the mutex id `[10 - (pl.get_block_num() + 1) % 2 * 10, 11]` depends on the run-time value of a value "
     "computed from the block index or count"),
])
def test_a_tile_address_or_mutex_id_computed_from_the_block_count_is_refused(declaration, what):
    text = edited(TILED, [("            addrs=0x8000,\n            mutex_ids=[10, 11],", declaration)])
    messages = [m for c, m in _findings(text) if c == "PTO061"]
    assert messages and what in messages[0], messages


@pytest.mark.parametrize("edits", [
    [("                consume(before.row, sub_id, out, x_db, r_db)\n",
      "                consume((core_id + (t - 1) * num_cores) * TILE, sub_id, out, x_db, r_db)\n")],
    [("    for t in pl.range(0, my_n + 1):\n", "    for u in pl.range(1, my_n + 2):\n        t = u - 1\n")],
], ids=["previous-tile", "shifted-beats"])
def test_the_neighbouring_tile_of_a_block_is_proven_and_verified(edits):
    text = edited(HAND, edits)
    assert _findings(text) == []
    for blocks, tiles in ((1, 3), (2, 5), (3, 7)):
        assert _hand_verdicts(text, tiles, blocks) == ["ok", "ok"], (blocks, tiles)


def test_a_residue_of_the_beat_moved_by_the_block_count_is_refused():
    # the vector cores wait on the other id than the cube sets at two blocks: never balanced
    text = edited(HAND, [("event_id=EV_FULL[(t - 1) % 2])", "event_id=EV_FULL[((t - 1) + (num_cores + 1) % 2) % 2])")])
    ((code, message),) = _findings(text)
    assert code == "PTO077" and "takes a residue of the loop variable moved by the block index or count" in message
    assert _hand_verdicts(text, 3, 1) == ["ok", "ok"]
    assert "imbalance" in _hand_verdicts(text, 3, 2)


#: contiguous chunks per block: block b takes tiles b * my_n .. (b + 1) * my_n - 1
CHUNKS = [("    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n", "    my_n = n_blocks // num_cores\n"),
          ("        now.row = (core_id + t * num_cores) * TILE", "        now.row = (core_id * my_n + t) * TILE")]


def test_a_hand_kernel_over_contiguous_chunks_per_block_is_proven():
    # `core_id * my_n` is 0 at block 0 whatever the count, and one constant through each other
    # block's run: it moves every access of the block alike, as the block index does (it was
    # "could not be checked", PTO077: a GM offset computed from the trip count)
    text = edited(HAND, CHUNKS)
    assert _findings(text) == []
    for tiles, blocks in ((4, 2), (6, 3), (3, 1), (1, 2)):
        assert _hand_verdicts(text, tiles, blocks) == ["ok", "ok"], (tiles, blocks)


def test_a_defect_of_a_hand_kernel_over_contiguous_chunks_is_refused():
    # the vector cores release a tile before reading it: the cube overwrites it from 3 tiles on
    text = edited(HAND, CHUNKS + [
        ("                consume(before.row, sub_id, out, x_db, r_db)\n"
         "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n",
         "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n"
         "                consume(before.row, sub_id, out, x_db, r_db)\n")])
    ((code, message),) = _findings(text)
    assert code == "PTO068", message
    assert "race" in _hand_verdicts(text, 6, 2)


#: the transpiled kernel over contiguous chunks: block b takes rows b * chunk .. (b + 1) * chunk - 1
TILED_CHUNKS = [("    for i in pl.range(core_id, n_blocks, num_cores):\n",
                 "    chunk = n_blocks // num_cores\n"
                 "    for j in pl.range(0, chunk):\n        i = core_id * chunk + j\n")]


def test_a_pipeline_over_contiguous_chunks_per_block_is_proven_and_runs_as_the_serial_kernel():
    # refused before: `core_id * chunk` was a variable of its own at each computation, so the
    # load and the store of a task moved "differently" with the block
    text = edited(TILED, TILED_CHUNKS)
    assert _findings(text) == []
    for blocks in (1, 2, 3):
        assert _tiled_verdicts(text, blocks) == ["ok", "ok"], blocks


#: the vector stage's store at a place every block takes: a counter of the block's own tasks,
#: or the task's index within its chunk
SHARED = {
    "counter": [("    for i in pl.range(core_id, n_blocks, num_cores):\n",
                 "    j = 0\n    for i in pl.range(core_id, n_blocks, num_cores):\n"),
                ("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
                 "            finish(j, sub_id, tiling.scale, out, proj_vec_db, res_db)\n        j = j + 1\n")],
    "chunk index": TILED_CHUNKS + [("            finish(i, sub_id,", "            finish(j, sub_id,")],
}


@pytest.mark.parametrize("name", list(SHARED))
def test_a_store_every_block_makes_at_the_same_place_is_refused(name):
    # the blocks race on the rows of their first tasks (the emulator: at two blocks, not at one);
    # accepted before, a race between blocks being outside what one block's run shows
    text = edited(TILED, SHARED[name])
    ((code, message),) = _findings(text)
    assert code == "PTO061" and "`out` is written at a place that does not depend on the block " \
        "(`pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])`)" in message, message
    verdicts = {blocks: _tiled_verdicts(text, blocks) for blocks in (1, 2)}
    assert verdicts[1] == ["ok", "ok"] and "race" in verdicts[2], verdicts


def test_a_store_of_one_block_is_not_taken_for_every_block():
    # block 0 alone raises a flag after its tasks: a test of the block index guards it
    text = edited(TILED, [("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
                           "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
                           "    if core_id == 0:\n        with pl.section_vector():\n"
                           "            if sub_id == 0:\n                pl.setval(done, 0, 1.0)\n"),
                          ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
                           "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"
                           "    done: pl.Tensor[[1, 1], pl.DT_FP32],\n")])
    every = text.replace("    if core_id == 0:\n        with", "    if True:\n        with")
    assert _findings(text) == []
    assert _findings(every)[0][0] == "PTO061"
    for kernel, verdict in ((text, "ok"), (every, "race")):  # the emulator at two blocks
        assert _tiled_verdicts(kernel, 2, done=(1, 1))[-1] == verdict


def _side_store(guard: str) -> str:
    """`finish` also stores its tile at the first rows of a tensor `side`, under `guard`."""
    return edited(TILED, [
        ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
         "def finish(i, sub_id, scale, out, proj_vec_db, res_db, side, rows, core_id, num_cores):"),
        ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
         f"    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n    if {guard}:\n"
         "        pl.store(side, res, [sub_id * HALF, 0])\n"),
        ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
         "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    side: pl.Tensor[[4 * BLOCK, BLOCK], pl.DT_FP32],\n"
         "    rows: pl.Tensor[[4], pl.DT_INT32],\n"),
        ("finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)",
         "finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db, side, rows, core_id, num_cores)")])


@pytest.mark.parametrize("guard", ["core_id < 4", "core_id >= 0", "num_cores > 0", "pl.getval(rows, 1) == 0",
                                   "scale > 0.0"])
def test_a_shared_store_under_a_test_true_on_several_blocks_is_refused(guard):
    # every block for which the test holds stores there (a hostile probe's kernels, accepted
    # while every write under a condition followed both ways went unjudged); only a test
    # singling out one block (`core_id == 0`) keeps the others away
    ((code, message),) = _findings(_side_store(guard))
    assert code == "PTO061" and "`side` is written at a place that does not depend on the block" in message, message
    assert _findings(_side_store("core_id == 0")) == []


def _else_store(guard: str) -> str:
    """`_side_store` with the store in the `else` of `guard`."""
    return _side_store(guard).replace(f"    if {guard}:\n        pl.store(side",
                                      f"    if {guard}:\n        pass\n    else:\n        pl.store(side")


@pytest.mark.parametrize("guard", ["core_id != 0", "not core_id == 0", "core_id != 0 or sub_id != 0"])
def test_a_shared_store_in_the_else_of_a_test_of_every_other_block_is_block_zeros(guard):
    # a probe's false refusal: the `else` of `core_id != 0` runs on block 0 alone (the emulator:
    # clean at 2 and 3 blocks); its body runs on every other block, two of them from 3 blocks
    assert _findings(_else_store(guard)) == []
    ((code, message),) = _findings(_side_store(guard))
    assert code == "PTO061" and "`side` is written at a place that does not depend on the block" in message, message
    assert [_tiled_verdicts(_else_store(guard), blocks, side=(128, 32), rows=(4,))[-1] for blocks in (2, 3)] == \
        ["ok", "ok"]
    assert _tiled_verdicts(_side_store(guard), 3, side=(128, 32), rows=(4,))[-1] == "race"


@pytest.mark.parametrize("guard, verdict", [("core_id < 4", "race"), ("core_id == 0", "ok")])
def test_the_emulator_agrees_on_the_guarded_shared_store(guard, verdict):
    assert _tiled_verdicts(_side_store(guard), 2, side=(128, 32), rows=(4,))[-1] == verdict


#: chunks that meet between blocks: the start steps less than a block's tasks reach
OVERLAPPING = {
    "start a tile short": "    chunk = n_blocks // num_cores\n    for j in pl.range(0, chunk):\n"
                          "        i = core_id * (chunk - 1) + j\n",
    "one task more": "    chunk = (n_blocks - 1) // num_cores\n    for j in pl.range(0, chunk + 1):\n"
                     "        i = core_id * chunk + j\n",
    "every other tile": "    chunk = n_blocks // num_cores\n    for j in pl.range(0, chunk):\n"
                        "        i = core_id * chunk + 2 * j\n",
}


@pytest.mark.parametrize("name", list(OVERLAPPING))
def test_chunks_that_meet_between_blocks_are_refused(name):
    # accepted after the chunk start became one block value, until its step was compared with
    # what a block's accesses reach (the emulator: a race between blocks at 2 or 3 blocks)
    text = edited(TILED, [(TILED_CHUNKS[0][0], OVERLAPPING[name])])
    ((code, message),) = _findings(text)
    assert code == "PTO061" and "reaches past its block's own chunk" in message, message


def test_the_emulator_agrees_on_chunks_that_meet():
    text = edited(TILED, [(TILED_CHUNKS[0][0], OVERLAPPING["start a tile short"])])
    assert _tiled_verdicts(text, 2, out=(320, 32))[-1] == "race"


#: chunks of a rounded-up size, the last block taking the remainder (or nothing): the chunk
#: size is a run-time value computed from the block count, no trip count
_ROUNDED = "    chunk = (n_blocks + num_cores - 1) // num_cores\n    start = core_id * chunk\n"
REMAINDER = {
    "task count": _ROUNDED + "    cnt = min(chunk, n_blocks - start)\n    for j in pl.range(0, cnt):\n"
                             "        i = start + j\n",
    "start to end": _ROUNDED + "    end = min(start + chunk, n_blocks)\n    for i in pl.range(start, end):\n",
    # a probe's false refusals: the end as the next block's start, a count clamped at 0, the
    # start plus the count
    "to the next start": _ROUNDED + "    end = min((core_id + 1) * chunk, n_blocks)\n"
                                    "    for i in pl.range(start, end):\n",
    "a count clamped at 0": _ROUNDED + "    cnt = max(0, min(chunk, n_blocks - start))\n"
                                       "    for j in pl.range(0, cnt):\n        i = start + j\n",
    "start and count": _ROUNDED + "    cnt = min(chunk, n_blocks - start)\n"
                                  "    for i in pl.range(start, start + cnt):\n",
}


@pytest.mark.parametrize("name", spread(list(REMAINDER), 3))  # all: campaign
def test_chunks_with_a_remainder_are_proven_and_run_as_the_serial_kernel(name):
    # refused before: `core_id * chunk` by a run-time chunk was a run-time value of its own, so
    # the offsets by it were unknown ("`out` is reached ... not known") and `pl.range(start, end)`
    # a trip count the check could not count through
    text = edited(TILED, [(TILED_CHUNKS[0][0], REMAINDER[name])])
    assert _findings(text) == []
    # 7 tiles on 2 and 3 blocks (a short last chunk), 5 on 4 (the last block has none)
    for tiles, blocks in ((7, 2), (7, 3), (5, 4), (1, 2)):
        rows = (32 * tiles, 32)
        assert _tiled_verdicts(text, blocks, a=rows, out=rows) == ["ok", "ok"], (tiles, blocks)


_COUNT_TABLE = ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
                "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    tbl: pl.Tensor[[4], pl.DT_INT32],\n")
#: chunks of a count read from GM by numbers (`tbl[0]`), the same on every block
COUNTED_CHUNKS = edited(TILED, [_COUNT_TABLE, (TILED_CHUNKS[0][0],
                                               "    n_t = pl.getval(tbl, 0)\n"
                                               "    chunk = (n_t + num_cores - 1) // num_cores\n"
                                               "    start = core_id * chunk\n"
                                               "    for i in pl.range(start, min(start + chunk, n_t)):\n")])


def test_chunks_of_a_count_read_from_gm_are_proven_and_run_as_the_serial_kernel():
    # a probe's false refusal of a production form ("the trip count of this loop is not static", as it then said):
    # a GM element named by numbers is one value on every block while no block writes it
    assert _findings(COUNTED_CHUNKS) == []
    code = transpile(COUNTED_CHUNKS, path="k.py").code
    for count, blocks in ((6, 2), (7, 3), (5, 3), (7, 1)):
        rows = verify(COUNTED_CHUNKS, code, "tiled_scale_kernel", shapes={"a": (256, 32), "out": (256, 32)},
                      tensors={"tbl": np.array([count, 0, 0, 0], dtype=np.int32)},
                      scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=blocks).rows
        assert [row.verdict for row in rows] == ["ok", "ok"], (count, blocks)


def test_chunks_of_a_count_the_kernel_writes_are_refused():
    # each block marks its own entry after its tasks: block 0's mark is the count a later block
    # may read. Refused by the accesses of `tbl` moving with the block differently (a write of
    # `tbl[0]` by one block alone: as a write read by every block; the chunk rule backs both)
    text = edited(COUNTED_CHUNKS, [("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
                                    "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
                                    "    with pl.section_vector():\n"
                                    "        if sub_id == 0:\n            pl.setval(tbl, core_id, 1)\n")])
    ((code, message),) = _findings(text)
    assert code == "PTO061" and "`tbl` is written, and its accesses are offset by the run-time value" in message, \
        message


#: chunks with a remainder whose blocks meet, or whose place does not move with the block
REMAINDER_DEFECTS = {
    "one task past the chunk": (_ROUNDED + "    end = min(start + chunk + 1, n_blocks)\n"
                                "    for i in pl.range(start, end):\n", "reaches past its block's own chunk"),
    "a count of one more": (_ROUNDED + "    cnt = min(chunk + 1, n_blocks - start)\n    for j in pl.range(0, cnt):\n"
                            "        i = start + j\n", "reaches past its block's own chunk"),
    "every other tile": (_ROUNDED + "    cnt = min(chunk, n_blocks - start)\n    for j in pl.range(0, cnt):\n"
                         "        i = start + 2 * j\n", "reaches past its block's own chunk"),
    "a tile short of the start": (_ROUNDED + "    end = min(start + chunk, n_blocks)\n"
                                  "    for i in pl.range(start - 1, end):\n",
                                  "starts at a value computed from a block's chunk start"),
    "to the start after next": (_ROUNDED + "    end = min((core_id + 2) * chunk, n_blocks)\n"
                                "    for i in pl.range(start, end):\n", "reaches past its block's own chunk"),
    "a count clamped at 1": (_ROUNDED + "    cnt = max(1, min(chunk, n_blocks - start))\n"
                             "    for j in pl.range(0, cnt):\n        i = start + j\n",
                             "reaches past its block's own chunk"),
    "start and a count one more": (_ROUNDED + "    cnt = min(chunk + 1, n_blocks - start)\n"
                                   "    for i in pl.range(start, start + cnt):\n",
                                   "reaches past its block's own chunk"),
    # every block stores its first tasks at rows 0, 1, ...: the block is in the count only
    "the count only": (_ROUNDED + "    cnt = min(chunk, n_blocks - start)\n    for i in pl.range(0, cnt):\n",
                       "is written at a place that does not depend on the block"),
}


@pytest.mark.parametrize("name", list(REMAINDER_DEFECTS))
def test_chunks_with_a_remainder_that_meet_are_refused(name):
    # the first two were accepted by this change's first form, the last one before it (the
    # block index in a trip count alone did not count as spreading the work over the blocks)
    form, words = REMAINDER_DEFECTS[name]
    ((code, message),) = _findings(edited(TILED, [(TILED_CHUNKS[0][0], form)]))
    assert code == "PTO061" and words in message, message


@pytest.mark.parametrize("name", ["one task past the chunk", "the count only"])
def test_the_emulator_agrees_on_chunks_with_a_remainder_that_meet(name):
    text = edited(TILED, [(TILED_CHUNKS[0][0], REMAINDER_DEFECTS[name][0])])
    rows = (224, 32)
    assert _tiled_verdicts(text, 1, a=rows, out=rows) == ["ok", "ok"]
    assert _tiled_verdicts(text, 2, a=rows, out=rows)[-1] == "race"


_COUNT_LOOP = "    cnt = min(chunk, n_blocks - start)\n    for j in pl.range(0, cnt):\n        i = start + j\n"
_ONE_TILE_SHORT = ("    n_blocks = a.shape[0] // BLOCK\n", "    n_blocks = a.shape[0] // BLOCK - 1\n")
_TABLE = ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
          "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    tbl: pl.Tensor[[4], pl.DT_INT32],\n")


def _cube_stores_second(stores: str) -> list[tuple[str, str]]:
    """`project` also stores its tile to a tensor `out2` (`stores`, offsets by `i` and `r`)."""
    return [("def project(i, a, w_slot,", "def project(i, r, a, out2, w_slot,"),
            ("    pl.matmul(acc, left, right)\n", "    pl.matmul(acc, left, right)\n" + stores),
            ("project(i, a, w_slot,", "project(i, r, a, out2, w_slot,"),
            ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
             "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"
             "    out2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n")]


#: a probe's kernels over chunks that reach another block's tasks, each accepted by the first
#: form of the chunks with a remainder (the last three before it) and racing between blocks on
#: the emulator: (edits beside the loop's, the loop, what the refusal says)
CHUNK_PROBES = {
    "an end one past the chunk": ([_ONE_TILE_SHORT], _ROUNDED + "    end = min(start + chunk, n_blocks) + 1\n"
                                  "    for i in pl.range(start, end):\n", "reaches past its block's own chunk"),
    "a count one past the chunk": ([_ONE_TILE_SHORT], _ROUNDED + "    cnt = min(chunk, n_blocks - start)\n"
                                   "    for j in pl.range(0, cnt + 1):\n        i = start + j\n",
                                   "reaches past its block's own chunk"),
    "a chunk read from GM by block": ([_TABLE], "    chunk = pl.getval(tbl, core_id)\n    start = core_id * chunk\n"
                                      + _COUNT_LOOP, "where `out` is reached is not known"),
    "a chunk holding the block index": ([], "    c0 = (n_blocks + num_cores - 1) // num_cores\n"
                                        "    chunk = max(c0, 8 - 4 * core_id)\n    start = core_id * chunk\n"
                                        + _COUNT_LOOP, "where `out` is reached is not known"),
    "the next block's chunk": (_cube_stores_second("    pl.store(out2, acc, [i * BLOCK, 0])\n"
                                                   "    pl.store(out2, acc, [r * BLOCK, 0])\n"),
                               _ROUNDED + _COUNT_LOOP + "        r = start + chunk + j\n",
                               "`out2` is written at a place the check cannot follow"),
    "a start scaled and divided": ([], "    start = core_id * n_blocks // num_cores\n"
                                   "    for i in pl.range(start, n_blocks):\n",
                                   "starts or steps by a block value other than as a per-core range does"),
    "a per-core range stepping by 1": ([], "    for i in pl.range(core_id, n_blocks):\n",
                                       "starts or steps by a block value other than as a per-core range does"),
    "a count hiding the block index": ([], "    cnt = min(n_blocks, 2 - core_id)\n    for i in pl.range(0, cnt):\n",
                                       "is written at a place that does not depend on the block"),
}


def _chunk_probe(name: str) -> str:
    edits, loop, _ = CHUNK_PROBES[name]
    return edited(TILED, [*edits, (TILED_CHUNKS[0][0], loop)])


@pytest.mark.parametrize("name", list(CHUNK_PROBES))
def test_a_probes_chunks_that_reach_another_blocks_tasks_are_refused(name):
    ((code, message),) = _findings(_chunk_probe(name))
    assert code == "PTO061" and CHUNK_PROBES[name][2] in message, message


@pytest.mark.parametrize("name", ["an end one past the chunk", "the next block's chunk",
                                  "a per-core range stepping by 1", "a count hiding the block index"])
def test_the_emulator_shows_the_probes_chunks_race_between_blocks(name):
    text = _chunk_probe(name)
    shapes = {"a": (224, 32), "out": (224, 32), "out2": (512, 32)}
    assert _tiled_verdicts(text, 1, **shapes) == ["ok", "ok"]
    assert _tiled_verdicts(text, 2, **shapes)[-1] == "race"


def test_a_test_of_the_variable_of_a_loop_over_a_chunk_against_a_number_is_refused():
    # `i == 0` is the first task of block 0 only: taken for every block's first task, it was
    # accepted (a probe could not turn it into a failure); only tests against the loop's own stop
    # (`i < end`, `i == end - 1`) are tests of the task's place in the chunk
    text = edited(TILED, [(TILED_CHUNKS[0][0], REMAINDER["start to end"]),
                          ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
                           "    if i == 0:\n        pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
                           "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n")])
    ((code, message),) = _findings(text)
    assert code == "PTO061" and "`i == 0` compares the loop variable with a value that is not its trip count" \
        in message, message


#: tasks moved with the block by a constant, `core_id * K + j`: apart only while a block's
#: tasks reach less than K
BY_CONSTANT = {
    "a run-time count": ("    for j in pl.range(0, n_blocks // num_cores):\n        i = core_id * 2 + j\n",
                         "moves with the block by 64 while a loop variable moves it further"),
    "five tasks in four": ("    for j in pl.range(0, 5):\n        i = core_id * 4 + j\n",
                           "its accesses move with the block by 128 but reach 160 apart in one block's run"),
}


@pytest.mark.parametrize("name", list(BY_CONSTANT))
def test_blocks_moved_by_a_constant_that_their_tasks_outreach_are_refused(name):
    # both were accepted (a known limit: races between blocks whose places both move with the
    # block); the emulator shows a race at two blocks, none at one
    form, words = BY_CONSTANT[name]
    text = edited(TILED, [(TILED_CHUNKS[0][0], form)])
    ((code, message),) = _findings(text)
    assert code == "PTO061" and words in message, message
    rows = (320, 32)
    assert _tiled_verdicts(text, 1, a=rows, out=rows) == ["ok", "ok"]
    assert _tiled_verdicts(text, 2, a=rows, out=rows)[-1] == "race"


def test_blocks_moved_by_a_constant_their_tasks_fit_in_are_proven():
    text = edited(TILED, [(TILED_CHUNKS[0][0], "    for j in pl.range(0, 4):\n        i = core_id * 4 + j\n")])
    assert _findings(text) == []
    rows = (320, 32)
    assert [_tiled_verdicts(text, blocks, a=rows, out=rows) for blocks in (1, 2)] == [["ok", "ok"]] * 2


def _flags_of_two_blocks(second: str) -> str:
    """Block 0 raises a flag after its tasks, and `second` (a block test) guards another store
    of it (a hostile probe's kernels: each single-block test was taken for block 0's)."""
    return edited(TILED, [
        ("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
         "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
         "    with pl.section_vector():\n        if sub_id == 0:\n            if core_id == 0:\n"
         "                pl.setval(done, 0, 1.0)\n"
         f"            {second}:\n                pl.setval(done, 0, 2.0)\n"),
        ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
         "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    done: pl.Tensor[[1, 1], pl.DT_FP32],\n")])


def test_one_place_written_under_tests_of_two_blocks_is_refused():
    ((code, message),) = _findings(_flags_of_two_blocks("if core_id == 1"))
    assert code == "PTO061" and "`done` is written at the same place by two blocks" in message, message
    assert _findings(_flags_of_two_blocks("if core_id == 0")) == []  # one block, in program order
    for text, verdict in ((_flags_of_two_blocks("if core_id == 1"), "race"),
                          (_flags_of_two_blocks("if core_id == 0"), "ok")):
        assert _tiled_verdicts(text, 2, done=(1, 1))[-1] == verdict


def test_a_chunk_start_scaled_by_a_value_of_the_block_is_refused():
    # `core_id * (chunk - core_id)`: the step is `chunk` at block 0 and shorter on the others,
    # whose chunks then start inside the one before (the emulator: a race at 2 blocks)
    text = edited(TILED, [(TILED_CHUNKS[0][0], "    chunk = n_blocks // num_cores\n    for j in pl.range(0, chunk):\n"
                                              "        i = core_id * (chunk - core_id) + j\n")])
    ((code, message),) = _findings(text)
    assert code == "PTO061", message
    # the same for a count computed with the block index, the strided per-block count
    ((code, message),) = _findings(edited(HAND, [CHUNKS[1]]))
    assert code == "PTO077", message


@pytest.mark.parametrize("guard, single", [("core_id == 0 and sub_id == 0", True),
                                           ("sub_id == 0 and core_id == 0", True),
                                           ("core_id < 4 and sub_id == 0", False)])
def test_a_test_of_one_block_joined_by_and_still_singles_it_out(guard, single):
    # `core_id == 0 and ...` is true on block 0 at most (refused before when the test of the
    # block came first: `and` of an unknown outcome gave nothing)
    text = edited(TILED, [("            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n",
                           "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
                           f"    with pl.section_vector():\n        if {guard}:\n"
                           "            pl.setval(done, 0, 1.0)\n"),
                          ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
                           "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"
                           "    done: pl.Tensor[[1, 1], pl.DT_FP32],\n")])
    assert (_findings(text) == []) == single, _findings(text)
    assert _tiled_verdicts(text, 2, done=(1, 1))[-1] == ("ok" if single else "race")


def test_a_chunk_start_that_moves_with_the_trip_count_at_block_0_is_not_checked():
    # `(core_id + 1) * my_n` is `my_n` at block 0: the offsets depend on the trip count there,
    # a product of two values that vary, a variable of its own wherever it is computed
    text = edited(HAND, [CHUNKS[0], ("        now.row = (core_id + t * num_cores) * TILE",
                                     "        now.row = ((core_id + 1) * my_n + t) * TILE")])
    ((code, message),) = _findings(text)
    assert code == "PTO077" and "could not be checked" in message, message


GROUP = (Path(__file__).parent / "kernels" / "group_from_gm.py").read_text()
#: the grouped matmul spread over the blocks: each takes every `num_cores`-th row block of the group
GROUP_OVER_BLOCKS = [
    ("    for i in pl.range(0, cnt):\n",
     "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
     "    num_cores = pl.get_block_num()\n"
     "    my_n = (cnt - core_id + num_cores - 1) // num_cores\n"
     "    for j in pl.range(0, my_n):\n"
     "        i = core_id + j * num_cores\n"),
]


def _group_verdicts(text: str, code: str, start: int, count: int, blocks: int) -> list[str]:
    rows = (start + count + 2) * 32
    tensors = {"starts": np.array([start, 0, 0, 0], dtype=np.int32),
               "counts": np.array([count, 0, 0, 0], dtype=np.int32)}
    shapes = {"x": (rows, 64), "out": (rows, 64)}
    return [row.verdict for row in verify(text, code, "grouped_mm_kernel", shapes=shapes, scalars={"alpha": 0.5},
                                          tensors=tensors, block_dim=blocks).rows]


def test_a_grouped_matmul_in_chunks_of_a_count_read_from_gm_is_proven_and_verified():
    # a probe's false refusal: the row blocks `starts[0] + st + i` move every block's chunk by the
    # group's start alike, a value the same on every block
    text = edited(GROUP, [("    for i in pl.range(0, cnt):\n",
                           "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                           "    num_cores = pl.get_block_num()\n    chunk = (cnt + num_cores - 1) // num_cores\n"
                           "    st = core_id * chunk\n    for i in pl.range(st, min(st + chunk, cnt)):\n")])
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.severity == "error"] == []
    for start, count, blocks in ((0, 5, 2), (1, 7, 3), (2, 3, 1), (0, 1, 3)):
        assert _group_verdicts(text, result.code, start, count, blocks) == ["ok", "ok"], (start, count, blocks)


def test_a_transpiled_kernel_with_a_per_block_count_read_from_gm_is_proven_and_verified():
    # the count is computed from `counts[0]`: part of the trip count, not sampled
    text = edited(GROUP, GROUP_OVER_BLOCKS)
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.severity == "error"] == []
    for start, count, blocks in ((0, 0, 1), (0, 5, 2), (1, 3, 3), (2, 7, 2)):
        assert _group_verdicts(text, result.code, start, count, blocks) == ["ok", "ok"], (start, count, blocks)


def test_a_store_at_the_beat_instead_of_the_block_tile_is_refused():
    # the cube stores block `core_id + j * num_cores`, the vector cores block `core_id + j`: two
    # strides, equal at one block only (at two, beat 2 of the vector cores meets beat 1 of the cube)
    text = edited(GROUP, GROUP_OVER_BLOCKS + [
        ("scale_store(start + i, sub_id", "scale_store(start + core_id + j, sub_id"),
        ("def gmm_stage(blk, g, x, w,", "def gmm_stage(blk, g, x, w, out,"),
        ("    pl.matmul(acc, left, right)\n",
         "    pl.matmul(acc, left, right)\n    pl.store(out, acc, [blk * T, 0])\n"),
        ("gmm_stage(start + i, g, x, w,", "gmm_stage(start + i, g, x, w, out,"),
    ])
    messages = [d.message for d in transpile(text, path="k.py").diagnostics if d.severity == "error"]
    assert messages and "do not stay within one stride" in messages[0], messages
