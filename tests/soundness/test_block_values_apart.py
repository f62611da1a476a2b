"""A sixth probe's kernels, each accepted and racing between blocks on the emulator:
- two run-time values computed from different block values (`max(core_id * 2, z)`,
  `max(core_id * 4, z)`) were one value: a number of the run inside a value's origin compared as
  the plain number (0 at block 0 for both), so a choice of the larger was taken for a `min`, and a
  count rebound under a block test for the count it was;
- two block values written alike (`c` rebound from `core_id * 2` to `core_id * 4`, a helper's
  parameter) were one value: a block value was named by its text and block 0's number only;
- a place moved by the block count alone (`(num_cores - 1) * T`, `ki = j + num_cores - 1`) was
  taken to move with the block, although every block computes the same place and writes it.
Each is refused now; the emulator shows each racing at 3 blocks (2 to 4 for the last kind).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime import verify

DEMO = (Path(__file__).parents[2] / "examples" / "seed_demo.py").read_text()
_BLOCKS = ("    # Cross-core shared buffers", "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                                             "    num_cores = pl.get_block_num()\n    # Cross-core shared buffers")
_LOOP = "    for ki in pl.range(0, N_ITER):\n"
_TASKS = "    for j in pl.range(0, cnt):\n        ki = start + j\n"
#: chunks of the demo's tiles, `lim` a block's count clamped to the tiles (proven alone), `z` zero
_CHUNKS = ("    chunk = (N_ITER + num_cores - 1) // num_cores\n    start = core_id * chunk\n"
           "    lim = min(chunk, N_ITER - start)\n    z = chunk - chunk\n")
_PLUS = ("@pl.pipeline.stage\ndef stage1", "def plus(c, ch):\n    return c + ch\n\n\n@pl.pipeline.stage\ndef stage1")
_SCR = ("    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n):",
        "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
        "    scr: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n):")
_STAGE4 = "            stage4(ki, sub_id, out, out_vec_db)\n"


def demo(loop: str, *extra, tiles: int = 8) -> str:
    return edited(DEMO, [_BLOCKS, (_LOOP, loop), ("N_ITER = 4\n", f"N_ITER = {tiles}\n"), *extra])


#: name -> (kernel, the block counts at which the emulator shows a race)
KERNELS = {
    "the larger of two block values taken for a min": (demo(
        _CHUNKS + "    x = max(core_id * 2, z)\n    big = max(core_id * 4, z)\n    cnt = big if x < lim else lim\n"
        + _TASKS), (3,)),
    "an end chosen so": (demo(
        _CHUNKS + "    x = max(core_id * 2, z)\n"
        "    e = start + max(core_id * 4, z) if start + x < start + lim else start + lim\n"
        "    for ki in pl.range(start, e):\n"), (3,)),
    "a count rebound under a block test to another block value": (demo(
        _CHUNKS + "    x = max(core_id * 2, z)\n    cnt = x if x < lim else lim\n"
        "    if core_id == 1:\n        cnt = max(core_id * 4, z) if x < lim else lim\n" + _TASKS), (3,)),
    "a name rebound to another block value": (demo(
        _CHUNKS + "    c = core_id * 2\n    x = c + z\n    c = core_id * 4\n    big = c + z\n"
        "    cnt = big if x < lim else lim\n" + _TASKS), (3,)),
    "a helper's parameter given two block values": (demo(
        _CHUNKS + "    x = plus(core_id * 2, z)\n    big = plus(core_id * 4, z)\n    cnt = big if x < lim else lim\n"
        + _TASKS, _PLUS), (3,)),
    "a store at the block count less one": (demo(
        "    chunk = (N_ITER + num_cores - 1) // num_cores\n    start = core_id * chunk\n"
        "    cnt = min(chunk, N_ITER - start)\n" + _TASKS, _SCR,
        (_STAGE4, _STAGE4 + "    with pl.section_vector():\n        r = relu_vec_db.next()\n"
                            "        pl.store(scr, r, [(num_cores - 1) * TILE + sub_id * TILE_HALF, 0])\n"), tiles=4),
        (2, 3, 4)),
    "tasks moved by the block count": (demo(
        "    chunk = (N_ITER + num_cores - 1) // num_cores\n    start = core_id * chunk\n"
        "    cnt = min(chunk, N_ITER - start)\n    for j in pl.range(0, cnt):\n        ki = j + num_cores - 1\n",
        tiles=4), (2, 3, 4)),
    "a per-core range storing at the block count less one": (demo(
        "    for ki in pl.range(core_id, N_ITER, num_cores):\n", _SCR,
        (_STAGE4, _STAGE4 + "    with pl.section_vector():\n        r = relu_vec_db.next()\n"
                            "        pl.store(scr, r, [(num_cores - 1) * TILE + sub_id * TILE_HALF, 0])\n"), tiles=4),
        (2, 3)),
}


@pytest.mark.parametrize("name", list(KERNELS))
def test_values_of_different_blocks_are_kept_apart(name):
    text, _ = KERNELS[name]
    found = [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert [code for code, _ in found] == [codes.PIPELINE_NOT_PROVEN], found


@pytest.mark.parametrize("name", ["the larger of two block values taken for a min", "a name rebound to another "
                                  "block value", "a store at the block count less one"])
def test_the_emulator_shows_them_race(name):
    text, blocks = KERNELS[name]
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    for b in blocks:
        assert "race" in [row.verdict for row in verify(text, code, "pipeline_demo_kernel", block_dim=b).rows], b


def test_the_same_block_value_computed_twice_is_one_value():
    # a true min, its operands computed twice from the same block value: proven, and runs as the serial kernel
    text = demo(_CHUNKS + "    x = max(core_id * 2, z)\n    y = max(core_id * 2, z)\n"
                          "    cnt = lim if y < lim else x\n    cnt = min(cnt, lim)\n" + _TASKS)
    found = [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.is_error]
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    for b in (1, 2, 3, 5):
        assert [row.verdict for row in verify(text, code, "pipeline_demo_kernel", block_dim=b).rows] == ["ok", "ok"]
    assert found == [], found


def _guarded_store(test: str, place: str) -> tuple:
    return (_STAGE4, _STAGE4 + f"    if {test}:\n        with pl.section_vector():\n"
                               "            r = relu_vec_db.next()\n"
                               f"            pl.store(scr, r, [{place} * TILE + sub_id * TILE_HALF, 0])\n")


_PER_CORE = "    for ki in pl.range(core_id, N_ITER, num_cores):\n"


def test_a_store_by_the_last_block_alone_is_one_blocks():
    # refused once the block count stopped moving places: `core_id == num_cores - 1` singles out
    # one block (the last), as `core_id == 0` does
    text = demo(_PER_CORE, _SCR, _guarded_store("core_id == num_cores - 1", "(num_cores - 1)"), tiles=4)
    assert [d.code for d in transpile(text, path="k.py").diagnostics if d.is_error] == []
    code = transpile(text, path="k.py").code
    for b in (1, 2, 3, 4):
        assert [row.verdict for row in verify(text, code, "pipeline_demo_kernel", block_dim=b).rows] == ["ok", "ok"]


def test_the_last_block_and_block_zero_storing_one_place_are_two_blocks():
    store = _guarded_store("core_id == num_cores - 1", "(num_cores - 1)")
    other = _guarded_store("core_id == 0", "(num_cores - 1)")[1][len(_STAGE4):].replace("r = ", "r0 = ").replace(
        "scr, r,", "scr, r0,")
    both = (store[0], store[1] + other)
    text = demo(_PER_CORE, _SCR, both, tiles=4)
    found = [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert [code for code, _ in found] == [codes.PIPELINE_NOT_PROVEN] and "two blocks" in found[0][1], found
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    assert "race" in [row.verdict for row in verify(text, code, "pipeline_demo_kernel", block_dim=2).rows]
