"""A third hostile probe of work spread over blocks found 12 kernels the check accepted and the
emulator shows wrong between blocks. Each is refused now:

* a `sync_all` in a loop whose count is read from GM at the block's index, and a chunk start by
  such a count: a GM read at a place that depends on the block marks the block index
  (`opevents._at_block`), so its value is taken to differ between blocks;
* a write of one block (`if core_id == 0:`) read by every block with no barrier between;
* a chunk start with a negative block factor (`(0 - core_id) * chunk`);
* writes at places the run cannot follow in a kernel over chunks of a trip count (`core_id * my_n`),
  and reads at such places of a tensor the blocks write, in any kernel spread over the blocks;
* a trip count from a block value computed other than by adding and scaling (`num_cores **
  pl.get_subblock_num()`, a value of its own on each core);
* a long static kernel whose chunk start is scaled by one trip count and whose tasks count another
  (the representative counts need not keep their order);
* a name rebound in the loop holding a number with no form (`t = (t + 1) * 1`).
A fourth probe found 3 more (`FOURTH`): cores counting `tbl[sub_id]` at one line, and writes of
one block at places the run cannot follow. The probes' kernels are kept as they wrote them."""

from __future__ import annotations

import pytest
from test_block_values import TILED, _cube_stores_second, _findings, _tiled_verdicts

from helpers import edited

LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
FIN = "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
SYNC = "        pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"
TBL = ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
       "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    tbl: pl.Tensor[[4], pl.DT_INT32],\n")
DONE = ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
        "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    done: pl.Tensor[[1, 1], pl.DT_FP32],\n")


def _long_static(N: int, M: int) -> str:
    """Static shapes, N and M module constants bounding `pl.range`s (so the check follows them at
    representative counts): block b takes M tasks from b * N."""
    return edited(TILED, [
        ("BLOCK = 32  # rows of A per pipeline iteration\n",
         f"BLOCK = 32  # rows of A per pipeline iteration\nN = {N}\nM = {M}\nROWS = (N + M) * BLOCK\n"),
        ("    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],", "    a: pl.Tensor[[ROWS, BLOCK], pl.DT_FP32],"),
        ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    tiling: ScaleTiling,\n",
         "    out: pl.Tensor[[ROWS, BLOCK], pl.DT_FP32],\n"),
        ("finish(i, sub_id, tiling.scale,", "finish(i, sub_id, 0.5,"),
        (LOOP, "    for q in pl.range(0, N):\n        pass\n"
               "    for j in pl.range(0, M):\n        i = core_id * N + j\n"),
    ])


def _cube_reads_out(read: str, loop: str) -> str:
    """The cube loads its weights from `out` at `read` before the loop (instead of from `w`)."""
    pre = ("    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    num_cores = pl.get_block_num()\n"
           "    n_blocks = a.shape[0] // BLOCK\n    chunk = (n_blocks + num_cores - 1) // num_cores\n")
    return edited(TILED, [
        ("        pl.load(w_slot, w, [0, 0])\n", f"        pl.load(w_slot, out, [{read}, 0])\n"),
        ("    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    num_cores = pl.get_block_num()\n"
         "    n_blocks = a.shape[0] // BLOCK\n", ""),
        ("    with pl.section_cube():\n        a_l1_db", pre + "    with pl.section_cube():\n        a_l1_db"),
        (LOOP, loop)])


H = {
    # 1. a sync_all in a loop whose trip count is read from GM at the block's index: the loop
    #    root is a GM read, which `marks_block_index` does not see, so `sync_all`'s "uneven
    #    loop" rule lets it through; blocks pass different numbers of barriers
    "sync_all in a loop of a count read per block": edited(TILED, [
        TBL, (LOOP, "    cnt = pl.getval(tbl, core_id)\n    for j in pl.range(0, cnt):\n"
                    "        i = core_id + j * num_cores\n"), (FIN, FIN + SYNC)]),
    # 2. block 0 alone writes a flag (`if core_id == 0:`, a guarded write, exempt from the shared
    #    write rule), every block reads it in its loop: a read of another block's write, no barrier
    "a write of block 0 read by every block": edited(TILED, [
        DONE,
        (FIN, FIN + "    if core_id == 0:\n        with pl.section_vector():\n            if sub_id == 0:\n"
                    "                pl.setval(done, 0, 1.0)\n"),
        ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
         "def finish(i, sub_id, scale, out, proj_vec_db, res_db, done):"),
        ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
         "    if sub_id == 0:\n        v = pl.getval(done, 0)\n        pl.muls(res, res, v)\n"
         "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n"),
        ("finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)",
         "finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db, done)")]),
    # 3. a chunk start with a negative block factor, `(0 - core_id) * chunk`, is a chunk start
    #    (`opaque_chunk` takes any coefficient), and `_ends_by` takes `(core_id + 1) * chunk` for
    #    the next block's start whatever the coefficient: block b runs (2b + 1) * chunk tasks
    "a negative chunk start to the next block's start": edited(TILED, [
        ("    n_blocks = a.shape[0] // BLOCK\n", "    n_blocks = a.shape[0] // BLOCK // 4\n"),
        (LOOP, "    chunk = (n_blocks + num_cores - 1) // num_cores\n    start = (0 - core_id) * chunk\n"
               "    end = min((core_id + 1) * chunk, n_blocks)\n    for i0 in pl.range(start, end):\n"
               "        i = i0 - 2 * start\n")]),
    # 4. even chunks (`core_id * my_n`, my_n a trip count): a write at a place the run cannot
    #    follow (the next block's chunk, through `(n_blocks + 0) // num_cores`, not the trip
    #    root) is not judged: `Uniform.unplaced` asks only kernels with chunks of a run-time
    #    size (`block_bounds`)
    "even chunks, a write to the next block's chunk": edited(TILED, _cube_stores_second(
        "    pl.store(out2, acc, [i * BLOCK, 0])\n    pl.store(out2, acc, [r * BLOCK, 0])\n") + [
        (LOOP, "    my_n = n_blocks // num_cores\n    for j in pl.range(0, my_n):\n        i = core_id * my_n + j\n"
               "        r = i + (n_blocks + 0) // num_cores\n")]),
    "even chunks, a mirrored write n - 1 - i": edited(TILED, _cube_stores_second(
        "    pl.store(out2, acc, [i * BLOCK, 0])\n    pl.store(out2, acc, [r * BLOCK, 0])\n") + [
        (LOOP, "    my_n = n_blocks // num_cores\n    for j in pl.range(0, my_n):\n        i = core_id * my_n + j\n"
               "        r = n_blocks - 1 - i\n")]),
    # 5. a read at a place the run cannot follow is never judged between blocks (`unplaced`
    #    asks writes only): the cube reads the next block's chunk of `out` (or its last tile)
    #    before the loop, while that block stores there
    "chunks, a read of the next block's chunk": _cube_reads_out(
        "(core_id * chunk + chunk) * BLOCK",
        "    start = core_id * chunk\n    end = min(start + chunk, n_blocks)\n    for i in pl.range(start, end):\n"),
    "per-core range, a read of the last tile": _cube_reads_out("(out.shape[0] // BLOCK - 1) * BLOCK", LOOP),
    # 6. the cube and the vector cores compute a trip count from the block count differently
    #    (`num_cores ** pl.get_subblock_num()`: B on the cube, B * B on the vector cores); both
    #    are named ("block", "k", 1, "other") by `_block_mark` (text and value at one block), one
    #    trip root, so the check takes them for one count
    "a count from num_cores ** subblock_num": edited(TILED, [
        ("    n_blocks = a.shape[0] // BLOCK\n", "    n_blocks = out.shape[0] // BLOCK\n"),
        (LOOP, "    k = num_cores ** pl.get_subblock_num()\n    cnt = (n_blocks + k - 1) // k\n"
               "    for j in pl.range(0, cnt):\n        i = core_id + j * num_cores\n")]),
    # 7. a long static kernel (followed at representative trip counts): block b takes M = N + 2
    #    tasks from `core_id * N`; N and M are separate roots whose representatives keep only
    #    their residue modulo the period, so N + 2 is taken for no more than N
    "long static: M = N + 2 tasks from core_id * N": _long_static(1100, 1102),
    # 8. a name rebound in the loop other than as a counter (`t = (t + 1) * 1`) whose value is a
    #    Sym without a loop variable (`core_id * 0`) is carried across iterations unchecked
    #    (`Loops._carry` checks plain numbers and values moving with a loop only); its accesses
    #    then move each iteration with no loop variable in them, so `_blocks_apart` judges only
    #    the counts run (up to 8 tasks fit `core_id * 8`)
    "a hidden counter at core_id * 8 + t": edited(TILED, [
        (LOOP, "    t = core_id * 0\n    for j in pl.range(0, n_blocks // num_cores):\n        i = core_id * 8 + t\n"),
        (FIN, FIN + "        t = (t + 1) * 1\n")]),
    # 9. a chunk start by a count read from GM at the block's index: the trip root is a GM read,
    #    which `_per_block` / `marks_block_index` do not see, so `core_id * my_n` is taken for a
    #    chunk start the same on every block (`_block_times_constant`)
    "chunks by a count read per block": edited(TILED, [
        TBL, (LOOP, "    my_n = pl.getval(tbl, core_id)\n    for j in pl.range(0, my_n):\n"
                    "        i = core_id * my_n + j\n")]),
    # 10. the only block value is an index into a count table at a place the run cannot follow
    #     (`min(core_id, 3)`): `moves_with_block` is asked of placed offsets only, so the kernel is
    #     never `spread`, and every block's stores at tiles 0 .. cnt - 1 are not judged
    "a count read at tbl[min(core_id, 3)], tiles from 0": edited(TILED, [
        TBL, (LOOP, "    cnt = pl.getval(tbl, min(core_id, 3))\n    for i in pl.range(0, cnt):\n")]),
}


# --- a fourth probe: counts of one core, and writes of one block at places the run cannot follow
_OUT = "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"
_PARAMS = (_OUT, _OUT + "    tbl: pl.Tensor[[4], pl.DT_INT32],\n    done: pl.Tensor[[4], pl.DT_FP32],\n")
_WITH_DONE = [("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
               "def finish(i, sub_id, scale, out, proj_vec_db, res_db, done):"),
              ("finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)",
               "finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db, done)"),
              ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n",
               "    if sub_id == 0:\n        v = pl.getval(done, 0)\n        pl.muls(res, res, v)\n"
               "    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])\n")]


def _after_loop(lines: str) -> str:
    """`_WITH_DONE`'s kernel (every block reads `done[0]`) with `lines` after its loop."""
    return edited(TILED, [_PARAMS, (FIN, FIN + lines), *_WITH_DONE])


FOURTH = {
    # the cube and AIV0 count `tbl[0]` tasks, AIV1 `tbl[1]`: one count to the check, taken from
    # the line's text (the emulator: the cores of one block disagree, at every block count)
    "a count of each core's own": (
        edited(TILED, [_PARAMS, (LOOP, "    cnt = pl.getval(tbl, sub_id)\n"
                                       "    for i in pl.range(core_id, cnt, num_cores):\n")]),
        "the cores run this loop a different number of times"),
    # block 0 writes `done[k]`, `k` read from GM: a write of one block anywhere in `done`
    "a flag of block 0 at a place read from GM": (
        _after_loop("    if core_id == 0:\n        with pl.section_vector():\n            if sub_id == 0:\n"
                    "                k = pl.getval(tbl, 0)\n                pl.setval(done, k, 1.0)\n"),
        "is written by one block (`pl.setval(done, k, 1.0)`) and read by every block"),
    "flags of blocks 0 and 1, one at a place read from GM": (
        _after_loop("    with pl.section_vector():\n        if sub_id == 0:\n            if core_id == 0:\n"
                    "                pl.setval(done, 0, 1.0)\n            if core_id == 1:\n"
                    "                k = pl.getval(tbl, 0)\n                pl.setval(done, k, 2.0)\n"),
        "is written"),
}


#: what each refusal says
SAYS = {
    "sync_all in a loop of a count read per block": "whose number of iterations differs between blocks",
    "a write of block 0 read by every block":
        "is written by one block (`pl.setval(done, 0, 1.0)`) and read by every block",
    "a negative chunk start to the next block's start": "in a way the check cannot count through",
    # (`n_blocks + 0` is `n_blocks`: the write is named as the next block's chunk it reaches)
    "even chunks, a write to the next block's chunk": "reaches past its block's own chunk",
    "even chunks, a mirrored write n - 1 - i": "`out2` is written at a place the check cannot follow",
    "chunks, a read of the next block's chunk": "`out` is read at a place the check cannot follow",
    "per-core range, a read of the last tile": "`out` is read at a place the check cannot follow",
    "a count from num_cores ** subblock_num": "is neither static nor a run-time value the check can name",
    "long static: M = N + 2 tasks from core_id * N": "reach 35264 apart in one block's run",
    "a hidden counter at core_id * 8 + t": "`t` carries a value from one iteration to the next",
    "chunks by a count read per block": "computed from the block index other than by scaling it",
    "a count read at tbl[min(core_id, 3)], tiles from 0": "is neither static nor a run-time value the check can name",
}

for _name, (_text, _words) in FOURTH.items():
    H[_name], SAYS[_name] = _text, _words


@pytest.mark.parametrize("name", list(H))
def test_the_third_and_fourth_probes_kernels_are_refused(name):
    ((code, message),) = _findings(H[name])
    assert code == "PTO061" and SAYS[name] in message, message


#: kernels whose wrong run needs no GM table: name -> (blocks, shapes)
SHOWN = {
    "a write of block 0 read by every block": (2, {"a": (256, 32), "out": (512, 32), "done": (1, 1)}),
    "even chunks, a write to the next block's chunk": (2, {"a": (256, 32), "out": (512, 32), "out2": (768, 32)}),
    "per-core range, a read of the last tile": (2, {"a": (256, 32), "out": (256, 32)}),
    "a hidden counter at core_id * 8 + t": (2, {"a": (640, 32), "out": (1024, 32)}),
}


@pytest.mark.parametrize("name", list(SHOWN))
def test_the_emulator_shows_the_third_probes_kernels_race(name):
    blocks, shapes = SHOWN[name]
    assert _tiled_verdicts(H[name], 1, **shapes) == ["ok", "ok"]
    assert "race" in _tiled_verdicts(H[name], blocks, **shapes)
