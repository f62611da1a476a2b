"""Values a block chooses: a probe's kernels, each accepted by the check and racing between
blocks on the emulator. A balanced split of an `n` that differs between blocks (chosen by the
block, or read at its index); a list changed in place under a test of the block, which the run
took as unchanged (the same list); a read moved by a choice of the block while every block
writes the same rows, and a store at a tile chosen by the block: a test of the block whose
outcome the run cannot settle sends blocks different ways, so a place every block writes, or
one the run cannot follow, is two blocks' (`Uniform.finish`, `Uniform.unplaced`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
PROJECT = "            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)\n"
TABLE = ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
         "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    tbl: pl.Tensor[[4], pl.DT_INT32],\n")
TASKS = "    for j in pl.range(0, cnt):\n        i = start + j\n"
_SPLIT_OF_N = "    base = n // num_cores\n    rem = n % num_cores\n"
_BALANCED_IF = (_SPLIT_OF_N + "    if core_id < rem:\n        cnt = base + 1\n        start = core_id * cnt\n"
                "    else:\n        cnt = base\n        start = core_id * base + rem\n" + TASKS)
_BALANCED_CHOICE = (_SPLIT_OF_N + "    start = core_id * (base + 1) if core_id < rem else core_id * base + rem\n"
                    "    cnt = base + 1 if core_id < rem else base\n" + TASKS)
_CHOSEN_N = "    n = n_blocks if core_id < 1 else n_blocks // 2\n"
_LIST_SET = "    st = [0]\n    if {}:\n        st[0] = core_id\n    for i in pl.range(st[0], n_blocks, num_cores):\n"


def _read_moved(choice: str) -> str:
    """Every block stores rows 0 .. n - 2 of `out` from rows `k` on of `a`, `k` chosen by the block."""
    return edited(TILED, [(LOOP, choice + "    for i in pl.range(0, n_blocks - 1):\n"),
                          (PROJECT, PROJECT.replace("project(i,", "project(i + k,"))])


#: name -> (kernel, tiles, blocks, the GM table when it reads one)
RACING = {
    "a balanced split of n chosen by the block, as an if": (edited(TILED, [(LOOP, _CHOSEN_N + _BALANCED_IF)]),
                                                            8, 2, None),
    "a balanced split of n chosen by the block, as choices": (edited(TILED, [(LOOP, _CHOSEN_N + _BALANCED_CHOICE)]),
                                                              8, 2, None),
    "a balanced split of n read at the block's index": (edited(TILED, [TABLE, (LOOP, "    n = pl.getval(tbl, core_id)\n"
                                                                                  + _BALANCED_CHOICE)]),
                                                        8, 2, [8, 4, 0, 0]),
    "a list item set under core_id == 1": (edited(TILED, [(LOOP, _LIST_SET.format("core_id == 1"))]), 6, 3, None),
    "a list item set under core_id < 2": (edited(TILED, [(LOOP, _LIST_SET.format("core_id < 2"))]), 6, 3, None),
    "a read moved by a choice of the block": (_read_moved("    k = 1 if core_id < 1 else 0\n"), 4, 2, None),
    "a read moved by an if of the block": (_read_moved("    k = 0\n    if core_id < 1:\n        k = 1\n"), 4, 2, None),
    "a read moved on the last block": (_read_moved("    k = 0 if core_id < num_cores - 1 else 1\n"), 5, 3, None),
    "a store at a tile chosen by the block": (edited(TILED, [(LOOP, "    k = 1 if core_id < 1 else 0\n"
                                                                    "    for j in pl.range(0, 1):\n"
                                                                    "        i = k + j\n")]), 5, 3, None),
}


def _verdicts(name: str) -> list[str]:
    text, tiles, blocks, table = RACING[name]
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
    rows = (32 * tiles, 32)
    tensors = {} if table is None else {"tbl": np.array(table, dtype=np.int32)}
    return [row.verdict for row in verify(text, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows},
                                          tensors=tensors, scalars={"scale": 0.5, "ApplyRelu": 1},
                                          block_dim=blocks).rows]


@pytest.mark.parametrize("name", list(RACING))
def test_a_kernel_whose_blocks_choose_differently_is_refused(name):
    errors = [d for d in transpile(RACING[name][0], path="k.py").diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO061"], [d.message for d in errors]


@pytest.mark.parametrize("name", ["a balanced split of n chosen by the block, as an if",
                                  "a balanced split of n read at the block's index",
                                  "a list item set under core_id == 1",
                                  "a read moved by a choice of the block", "a store at a tile chosen by the block"])
def test_the_emulator_shows_they_race(name):
    assert _verdicts(name)[0] == "race"


_SETTER = ("def epilogue(", "def setst(st, v):\n    st[0] = v\n\n\ndef epilogue(")
_FROM = "    for i in pl.range({}, n_blocks, num_cores):\n"
#: a fourth probe's kernels, each accepted and racing at 6 tiles on 3 blocks: a list changed under a
#: test of the block where the run did not look (inside a tuple, through an alias, by a helper,
#: six levels down)
CHANGED_IN_PLACE = {
    "a list in a tuple": [(LOOP, "    t = ([0],)\n    if core_id == 1:\n        t[0][0] = core_id\n"
                                 + _FROM.format("t[0][0]"))],
    "a list aliased by a tuple": [(LOOP, "    st = [0]\n    t = (st,)\n    if core_id == 1:\n        st[0] = core_id\n"
                                         + _FROM.format("t[0][0]"))],
    "a list in a tuple, +=": [(LOOP, "    t = ([0],)\n    if core_id == 1:\n        t[0][0] += core_id\n"
                                     + _FROM.format("t[0][0]"))],
    "a list in a tuple, set by a helper": [_SETTER, (LOOP, "    t = ([0],)\n    if core_id == 1:\n"
                                                           "        setst(t[0], core_id)\n" + _FROM.format("t[0][0]"))],
    "a list six levels down": [(LOOP, "    st = [[[[[[0]]]]]]\n    if core_id == 1:\n"
                                      "        st[0][0][0][0][0][0] = core_id\n"
                                      + _FROM.format("st[0][0][0][0][0][0]"))],
}


@pytest.mark.parametrize("name", list(CHANGED_IN_PLACE))
def test_a_container_changed_in_place_under_a_test_of_the_block_is_refused(name):
    text = edited(TILED, CHANGED_IN_PLACE[name])
    assert [d.code for d in transpile(text, path="k.py").diagnostics if d.is_error] == ["PTO061"]
    if name == "a list in a tuple":
        code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code
        rows = (32 * 6, 32)
        assert verify(text, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows},
                      scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=3).rows[0].verdict == "race"


@pytest.mark.parametrize("test", ["core_id > 0", "core_id != 0", "core_id >= 1"])
def test_block_zero_alone_running_every_tile_after_the_others_return_is_proven(test):
    # a probe's false refusals: the early return's test was taken for one sending the blocks
    # different ways, so block 0's stores were judged as every block's
    text = edited(TILED, [(LOOP, f"    if {test}:\n        return\n    for i in pl.range(0, n_blocks):\n")])
    assert [d.code for d in transpile(text, path="k.py").diagnostics if d.is_error] == []
    code = transpile(text, path="k.py").code
    for tiles, blocks in ((4, 1), (5, 2), (7, 4)):
        rows = (32 * tiles, 32)
        assert [row.verdict for row in verify(text, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows},
                                              scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=blocks).rows] == \
            ["ok", "ok"], (tiles, blocks)
