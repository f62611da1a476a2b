"""A second hostile probe of work spread over blocks found 16 kernels the check accepted and the
emulator shows wrong between blocks (or, for a loop counting down, on one block). Each is
refused now, naming the construct:

* the truth of a block value (`if core_id:`, `if num_cores - 1:`, `not core_id`) was settled
  at block 0 of one block; it is followed both ways, as `core_id > 0` is;
* a counter that starts at a value of the block (`t = core_id`) or steps by a value known only
  at run time (`t = t + (2 - num_cores)`) was followed at this run's block;
* a chunk start `core_id * X` with `X` computed from the block count stepped by `X` at one block;
* a per-core range counting down was taken for one counting up;
* an offset moved by the block index and the block count (`core_id * 2 + num_cores - 1 + j`);
* a barrier of all cores inside a loop whose trip count differs between blocks (a block with
  fewer iterations never arrives).
A kernel with no block value at all, every block running every task, stays outside the model."""

from __future__ import annotations

import pytest
from test_block_values import TILED, _findings, _tiled_verdicts

from helpers import edited

LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
FIN = "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
STORE = "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"
HALVED = ("    n_blocks = a.shape[0] // BLOCK\n", "    n_blocks = a.shape[0] // BLOCK // 2\n")
PROJECT_STORES = [("def project(i, a, w_slot,", "def project(i, a, out, w_slot,"),
                  ("    pl.matmul(acc, left, right)\n",
                   "    pl.matmul(acc, left, right)\n    pl.store(out, acc, [i * BLOCK, 0])\n"),
                  ("project(i, a, w_slot,", "project(i, a, out, w_slot,")]


def _finish_guard(guard: str, store: str = "        pl.store(out, res, [sub_id * HALF, 0])\n",
                  orelse: str | None = None) -> str:
    """`finish` also stores tile 0 under `guard` (or in its `else`)."""
    body = STORE + f"    if {guard}:\n" + store + ("    else:\n" + orelse if orelse else "")
    return edited(TILED, [("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
                           "def finish(i, sub_id, scale, out, proj_vec_db, res_db, core_id, num_cores):"),
                          (STORE, body),
                          ("finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)",
                           "finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db, core_id, num_cores)")])


def _project_guard(guard: str, store: str) -> str:
    """`project` also makes `store` under `guard`."""
    return edited(TILED, [("def project(i, a, w_slot,", "def project(i, a, out, core_id, num_cores, w_slot,"),
                          ("    pl.matmul(acc, left, right)\n",
                           f"    pl.matmul(acc, left, right)\n    if {guard}:\n        {store}\n"),
                          ("project(i, a, w_slot,", "project(i, a, out, core_id, num_cores, w_slot,")])


#: name -> (kernel, what the refusal says)
PROBES = {
    "if num_cores - 1 in the cube stage": (
        _project_guard("num_cores - 1", "pl.store(out, acc, [core_id * BLOCK, 0])"),
        "offset by the run-time value of `get_block_idx() // get_subblock_num()` differently"),
    "if core_id": (_finish_guard("core_id"), "is written at a place that does not depend on the block"),
    "if num_cores - 1": (_finish_guard("num_cores - 1"), "is written at a place that does not depend on the block"),
    "else of not core_id": (_finish_guard("not core_id", "        pass\n",
                                          "        pl.store(out, res, [sub_id * HALF, 0])\n"),
                            "is written at a place that does not depend on the block"),
    "if core_id: the previous tile": (_project_guard("core_id", "pl.store(out, acc, [(i - 1) * BLOCK, 0])"),
                                      "do not stay within one stride of each other"),
    "a counter stepping by 2 - num_cores": (
        edited(TILED, PROJECT_STORES + [(LOOP, "    t = 0\n    for q in pl.range(0, n_blocks // num_cores):\n"
                                               "        i = core_id + t * num_cores\n"),
                                        (FIN, FIN + "        t = t + (2 - num_cores)\n")]),
        "counter `t` steps by a value known only at run time"),
    "a chunk start core_id * (8 - 4 * num_cores)": (
        edited(TILED, [(LOOP, "    for j in pl.range(0, 4):\n        i = core_id * (8 - 4 * num_cores) + j\n")]),
        "computed from the block index other than by scaling it"),
    "a chunk start core_id * (n_blocks - num_cores)": (
        edited(TILED, [HALVED, (LOOP, "    for j in pl.range(0, n_blocks - 1):\n"
                                      "        i = core_id * (n_blocks - num_cores) + j\n")]),
        "computed from the block index other than by scaling it"),
    "a counter from core_id": (
        edited(TILED, [(LOOP, "    t = core_id\n    for q in pl.range(0, n_blocks // 2):\n        i = t\n"),
                       (FIN, FIN + "        t = t + 1\n")]),
        "counter `t` starts at a value of the block"),
    "a residue counter from core_id": (
        edited(TILED, [(LOOP, "    t = core_id\n    for q in pl.range(0, n_blocks // 2):\n        i = t\n"),
                       (FIN, FIN + "        t = (t + 1) % 4\n")]),
        "counter `t` starts at a value of the block"),
    "a per-core range counting down": (
        edited(TILED, [(LOOP, "    neg = 0 - n_blocks\n    for k in pl.range(0 - core_id, neg, 0 - num_cores):\n"
                              "        i = 0 - k\n")]),
        "starts or steps by a block value other than as a per-core range does"),
    "the block index and count in one offset": (
        edited(TILED, [(LOOP, "    for j in pl.range(0, n_blocks // num_cores):\n"
                              "        i = core_id * 2 + num_cores - 1 + j\n")]),
        "moves with the block by 64 while a loop variable moves it further"),
    "a barrier in a per-core range": (
        edited(TILED, [(FIN, FIN + "        pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n")]),
        "whose number of iterations differs between blocks"),
}


@pytest.mark.parametrize("name", list(PROBES))
def test_the_probes_kernels_are_refused_naming_the_construct(name):
    text, words = PROBES[name]
    ((code, message),) = _findings(text)
    assert code == "PTO061" and words in message, message


#: one kernel per cause, and the run that shows it wrong: (blocks, tiles, the pipelined verdict)
SHOWN = {"if num_cores - 1 in the cube stage": (2, 8, "race"), "a counter stepping by 2 - num_cores": (2, 8, "race"),
         "a chunk start core_id * (8 - 4 * num_cores)": (2, 8, "race"), "a counter from core_id": (2, 8, "race"),
         "a per-core range counting down": (1, 8, "mismatch"),
         "the block index and count in one offset": (2, 8, "race")}


@pytest.mark.parametrize("name", list(SHOWN))
def test_the_emulator_shows_the_probes_kernels_wrong(name):
    blocks, tiles, verdict = SHOWN[name]
    rows = (32 * tiles, 32)
    out = (32 * max(tiles, 16), 32)
    assert _tiled_verdicts(PROBES[name][0], blocks, a=rows, out=out)[-1] == verdict


def _every_other(stores: int) -> str:
    """A per-core range of every other tile (`pl.range(2 * core_id, n, 2 * num_cores)`) whose
    tasks store `stores` tiles from their own."""
    lines = "".join(f"    pl.store(out, res, [(i + {k}) * BLOCK + sub_id * HALF, 0])\n" for k in range(stores))
    return edited(TILED, [(LOOP, "    for i in pl.range(2 * core_id, n_blocks, 2 * num_cores):\n"), (STORE, lines)])


def test_a_per_core_range_of_every_other_tile_keeps_two_tiles_a_task_apart():
    # the probe's false refusal ("do not stay within one stride"): its variable steps 2 at one
    # block and 2B at B, so the two tiles of a task never meet another task's, on any block
    assert _findings(_every_other(2)) == []
    for tiles, blocks in ((8, 1), (8, 2), (10, 3), (7, 2)):
        shape = (32 * tiles + 96, 32)
        assert _tiled_verdicts(_every_other(2), blocks, a=(32 * tiles, 32), out=shape) == ["ok", "ok"]
    ((code, message),) = _findings(_every_other(3))  # three tiles reach the next block's task
    assert code == "PTO061" and "do not stay within one stride" in message, message
    assert _tiled_verdicts(_every_other(3), 2, a=(256, 32), out=(352, 32))[-1] == "race"


_TOP = "    n_blocks = a.shape[0] // BLOCK\n"


def _returning(test: str, more=()) -> str:
    """The tiled kernel returning early under `test`, right after it counts its tiles."""
    return edited(TILED, [(_TOP, _TOP + f"    if {test}:\n        return\n"), *more])


def test_an_early_return_of_the_blocks_without_tiles_is_proven():
    # a probe's false refusal of a production form: the blocks it holds on do nothing from there,
    # on all their cores alike (the emulator: clean with more blocks than tiles, and with fewer)
    text = _returning("core_id >= n_blocks")
    assert _findings(text) == []
    for tiles, blocks in ((2, 3), (3, 4), (7, 2), (1, 1)):
        rows = (32 * tiles, 32)
        assert _tiled_verdicts(text, blocks, a=rows, out=rows) == ["ok", "ok"], (tiles, blocks)


def test_a_barrier_after_an_early_return_is_refused():
    text = _returning("core_id >= n_blocks", [(FIN, FIN + "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n")])
    ((code, message),) = _findings(text)
    assert code == "PTO061" and "a block that returned early" in message, message


def test_a_return_of_some_cores_of_a_block_is_refused():
    # `if sub_id >= 1: return` ended the check's run of every core, and the kernel was accepted;
    # the emulator shows the cores of one block disagree
    text = _returning("sub_id >= 1")
    ((code, message),) = _findings(text)
    assert code == "PTO061" and "on some cores of a block and not on the others" in message, message
    assert _tiled_verdicts(text, 1, a=(64, 32), out=(64, 32)) == ["error"]


UNDECIDED = "under a condition the check cannot decide"


@pytest.mark.parametrize("test, why", [
    ("core_id >= n_blocks and sub_id == 1", UNDECIDED), ("core_id + sub_id >= n_blocks", UNDECIDED),
    ("pl.get_block_idx() >= n_blocks", UNDECIDED), ("core_id >= n_blocks - sub_id", UNDECIDED),
    # true on the second vector core whatever the block: that core returns, its twin may not
    ("core_id >= n_blocks or sub_id == 1", "on some cores of a block and not on the others")])
def test_an_early_return_whose_test_differs_between_the_cores_of_a_block_is_refused(test, why):
    # a probe's kernels, accepted by the first form of the early return: the cores of one block
    # part (the emulator: the cores disagree, and with `and sub_id == 1` the pipelined kernel
    # deadlocks at 3 blocks while the serial one runs clean)
    ((code, message),) = _findings(_returning(test))
    assert code == "PTO061" and why in message, message


def test_the_emulator_shows_an_early_return_of_one_vector_core_deadlock_the_pipeline():
    text = _returning("core_id >= n_blocks and sub_id == 1")
    assert _tiled_verdicts(text, 3, a=(64, 32), out=(64, 32)) == ["ok", "deadlock"]
