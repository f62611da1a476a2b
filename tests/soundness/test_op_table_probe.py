"""A probe comparing the op table with the emulator found 7 kernels the check accepted while the
pipelined kernel computes other numbers on the emulator (its race detector reads the same table,
so they show as mismatches):

- ops that write a window of their source, not their destination's valid window (`ub_copy`,
  `move` Vec->Vec, `transpose`, `row_sum`), were counted as overwriting all of the destination:
  rows loaded there by an earlier stage were taken as dead, and a later task's load running
  ahead went unordered. Such a write covers the destination only where the window it writes is
  the destination's valid window (`pto_api.effects.source_window`);
- `mrgsort` writes as many records as its source holds, past a smaller destination: refused;
- the AR special register (`pl.get_spr`) and the vector-mask mode (`pl.set_vec_mask`, ...) are
  state a stage run ahead changes under another: refused.

The kernels are examples/seed_demo.py with its last vector stage also copying a half-valid tile
into a tile its second stage loads, and storing the result to a second output.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime import verify

DEMO = (Path(__file__).parents[2] / "examples" / "seed_demo.py").read_text()
_ROW = "[ki * TILE + sub_id * TILE_HALF, 0]"
_SMALL = "shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,\n" \
         "                             valid_shape=[TILE_HALF // 2, TILE]"


def _kernel(op: str, small: str = _SMALL) -> str:
    """seed_demo whose stage2 loads this AIV's rows of `a` into `x`, and whose stage4 then runs
    `op` (writing `x` from the half-valid `ysm`) and stores `x` to `out2`."""
    return edited(DEMO, [
        ("def stage2(ki, sub_id, mm1_vec_db,", "def stage2(ki, sub_id, a, x_g, mm1_vec_db,"),
        ("    pl.insert(p_mat, relu_nz, [sub_id * TILE_HALF, 0])\n",
         f"    pl.insert(p_mat, relu_nz, [sub_id * TILE_HALF, 0])\n    x = x_g.current()\n    pl.load(x, a, {_ROW})\n"),
        ("def stage4(ki, sub_id, out, out_vec_db):", "def stage4(ki, sub_id, out, out2, x_g, ysm_g, out_vec_db):"),
        (f"    pl.store(out, out_vec, {_ROW})\n",
         f"    pl.store(out, out_vec, {_ROW})\n    x = x_g.current()\n    ysm = ysm_g.current()\n    {op}\n"
         f"    pl.store(out2, x, {_ROW})\n"),
        ("    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n):",
         "    out: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n"
         "    out2: pl.Tensor[[N_ITER * TILE, TILE], pl.DT_FP32],\n):"),
        ("            addrs=0x18000,\n            mutex_ids=[20, 21],\n        )\n",
         "            addrs=0x18000,\n            mutex_ids=[20, 21],\n        )\n"
         "        x_g = pl.make_tile_group(\n"
         "            type=pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),\n"
         "            addrs=0x20000,\n            mutex_ids=[22],\n        )\n"
         "        ysm_g = pl.make_tile_group(\n"
         f"            type=pl.TileType({small}),\n"
         "            addrs=0x28000,\n            mutex_ids=[23],\n        )\n"
         "        ysm0 = ysm_g.current()\n        pl.full(ysm0, 1.0)\n"),
        ("stage2(ki, sub_id, mm1_vec_db,", "stage2(ki, sub_id, a, x_g, mm1_vec_db,"),
        ("stage4(ki, sub_id, out, out_vec_db)\n", "stage4(ki, sub_id, out, out2, x_g, ysm_g, out_vec_db)\n"),
    ])


#: name -> (the op, ysm's TileType arguments)
PARTIAL = {
    "ub_copy": ("pl.ub_copy(x, ysm)", _SMALL),
    "move Vec->Vec": ("pl.move(x, ysm)", _SMALL),
    "row_sum": ("pl.row_sum(x, ysm)", _SMALL),
    "transpose": ("pl.transpose(x, ysm)", _SMALL.replace("shape=[TILE_HALF, TILE]", "shape=[TILE, TILE_HALF]")
                  .replace("valid_shape=[TILE_HALF // 2, TILE]", "valid_shape=[TILE, TILE_HALF // 2]")),
}


#: a second probe's: writes the check counted as covering all of `x` (a reduction by `dim=`, a
#: scratch operand the emulator does not touch, a destination that is not the first operand)
LESS = {
    "maximum with dim": "pl.maximum(x, ysm, ysm, dim=0)",  # (its third operand the scratch tile)
    "argmax's scratch": "pl.argmax(ysm, ysm, x)",
    "gather's scratch": "pl.gather(ysm, ysm, ysm, x)",
    "mrgsort2's destination": "pl.mrgsort2(ysm, ysm, x, ysm)",
}


def _errors(text: str, skip: tuple = ()) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="k.py", _skip_rules=skip).diagnostics if d.is_error]


def _verdicts(text: str) -> list[str]:
    code = transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,
                                                     codes.TILE_STATE_ACROSS_ITERATIONS)).code
    return [row.verdict for row in verify(text, code, "pipeline_demo_kernel", path="k.py").rows]


@pytest.mark.parametrize("name", list(PARTIAL))
def test_a_write_of_the_sources_window_does_not_cover_a_larger_destination(name):
    errors = _errors(_kernel(*PARTIAL[name]))
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN], errors
    assert "reads `x_g[0]`: in the serial kernel it sees stage `stage2`" in errors[0][1], errors


def test_the_emulator_shows_the_partial_copy_computes_other_numbers():
    verdicts = _verdicts(_kernel(*PARTIAL["ub_copy"]))
    assert verdicts[0] == "ok" and verdicts[1].startswith("mismatch"), verdicts


def test_a_copy_that_fills_the_destination_covers_it_and_runs_as_the_serial_kernel():
    # `ysm` wholly valid: the copy writes all of `x`, the rows stage2 loaded are overwritten
    text = _kernel("pl.ub_copy(x, ysm)", _WHOLE)
    assert _errors(text) == []
    assert _verdicts(text) == ["ok", "ok"]


_WHOLE = "shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec"


@pytest.mark.parametrize("op, small, said", [
    # 16 fp32 records of `x`'s 32 columns into a 64-byte destination: the emulator writes them on
    ("pl.full(x, 0.0)\n    pl.mrgsort(ysm, x, block_len=2)",
     "shape=[1, 16], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec",
     "`pl.mrgsort` writes as many records as its source's valid columns hold"),
    ("pl.ub_copy(x, ysm)\n    n = pl.get_spr()", _WHOLE, "`pl.get_spr` reads or sets a core's special registers"),
    ("pl.ub_copy(x, ysm)\n    pl.set_vec_mask(0, ki + 1)", _WHOLE,
     "`pl.set_vec_mask` reads or sets a core's special registers"),
])
def test_ops_on_state_or_bytes_the_check_does_not_place_are_refused(op, small, said):
    errors = _errors(_kernel(op, small))
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN] and said in errors[0][1], errors


@pytest.mark.parametrize("name", list(LESS))
def test_a_write_that_may_leave_part_of_its_tile_does_not_cover_it(name):
    text = _kernel(LESS[name], _WHOLE)
    # the proof itself (PTO065 names a read before a write that does not cover too, as for argmax)
    errors = _errors(text, skip=(codes.TILE_STATE_ACROSS_ITERATIONS,))
    assert [c for c, _ in errors] == [codes.PIPELINE_NOT_PROVEN], errors
    assert "reads `x_g[0]`: in the serial kernel it sees stage `stage2`" in errors[0][1], errors


@pytest.mark.parametrize("name", ["maximum with dim", "mrgsort2's destination"])
def test_the_emulator_shows_the_partial_write_leaves_the_loaded_rows(name):
    # (argmax and gather want integer tiles on the emulator: their refusal is the same rule)
    verdicts = _verdicts(_kernel(LESS[name], _WHOLE))
    assert verdicts[0] == "ok" and verdicts[1].startswith("mismatch"), verdicts


def test_a_matmul_given_a_bias_reads_it():
    # `pl.matmul(acc, a, b, bias)` is matmul_bias: the bias, moved in by each task into a slot
    # with no mutex, is read by the matmul of the task before on another pipe; the check read no
    # fourth operand
    text = edited(DEMO, [("    pl.matmul(acc, left, right)\n    mm1_vec = mm1_vec_db.next()\n",
                          "    bias = bias_g.current()\n    pl.move(bias, cur_a)\n"
                          "    pl.matmul(acc, left, right, bias)\n    mm1_vec = mm1_vec_db.next()\n"),
                         ("def stage1(ki, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db):",
                          "def stage1(ki, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db, bias_g):"),
                         ("stage1(ki, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db)\n",
                          "stage1(ki, a, b_l1, a_l1_db, left_db, right_db, acc_db, mm1_vec_db, bias_g)\n"),
                         ("        b_slot = b_l1.current()\n",
                          "        bias_g = pl.make_tile_group(\n            type=pl.TileType(shape=[TILE, TILE], "
                          "dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left, layout=pl.NZ),\n"
                          "            addrs=0x8000,\n            depth=1,\n        )\n"
                          "        b_slot = b_l1.current()\n")])
    errors = _errors(text)
    assert errors and {c for c, _ in errors} == {codes.PIPELINE_NOT_PROVEN}, errors
    assert any("`pl.matmul_bias` on M of AIC reads `bias_g[0]`" in m for _, m in errors), errors
