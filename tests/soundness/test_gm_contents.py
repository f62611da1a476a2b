"""What GM holds, as the check compares the serial and the pipelined kernel: element by
element at the end (two stores that overlap in part and swap places were compared as whole
regions, which hid the swap), and a read of what atomic adds left sees every one of them (as
plain writes, the additions a read-back sees could change without the last one changing). The
kernels are `variants.py`."""

from __future__ import annotations

import pytest
from variants import KERNEL_TEXTS, accumulate_only, atomic_read_back, base, edit, errors, overlap_reordered

from pto_transpile import transpile


def test_stores_that_overlap_in_part_and_swap_places_are_refused():
    (message,) = errors(overlap_reordered(), "overlap_reordered.py")
    assert "`out[64:66, 0:32]` ends with different contents" in message
    assert "the serial kernel leaves stage `fill_row` (task 1)" in message
    assert "the pipelined kernel stage `scale_store` (task 0)" in message


def test_stores_that_touch_without_overlapping_are_accepted():
    assert errors(overlap_reordered(24), "overlap_reordered.py") == []


def test_an_atomic_add_read_back_is_refused_when_the_pipeline_adds_another_first():
    # refused across blocks first (every block adds into `total` and reads it back); on one
    # block the read-back sees one more addition pipelined (`test_atomic_commute.py` holds
    # the reaching sets that show it)
    messages = errors(atomic_read_back(), "atomic_read_back.py")
    assert any("`total` is added to atomically by every block" in m and "`pl.load(y, total, [sub_id * HALF, 0])`"
               in m for m in messages), messages


def test_atomic_adds_of_one_stage_are_accepted():
    assert errors(accumulate_only(), "accumulate_only.py") == []


@pytest.mark.emulator
@pytest.mark.parametrize("name, same", [("overlap_reordered", False), ("atomic_read_back", False),
                                        ("accumulate_only", True)])
def test_the_emulator_agrees(name, same):
    from sim_runtime.verify import verify

    text = KERNEL_TEXTS[name]()
    code = transpile(text, path=name, _skip_rules=["PTO061"]).code
    assert code is not None
    row = verify(text, code, "kernel", path=name).rows[-1]
    assert (row.verdict == "ok") == same, (row.verdict, row.message)


def test_a_store_at_an_offset_read_from_gm_is_a_superset_of_the_tensor():
    # where it lands is not known: it conflicts with every access of `out`, and overwrites none
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile
    from pto_transpile.soundness.interp import Config, Interpreter

    text = edit(base(), ("    pl.store(out, y, [(ki + d) * TILE + sub_id * HALF, 0])",
                          "    pl.store(out, y, [pl.getval(rows, ki) + sub_id * HALF, 0])"),
                ("def scale_store(ki, d, sub_id, out,", "def scale_store(ki, rows, sub_id, out,"),
                ("scale_store(ki, d, sub_id, out,", "scale_store(ki, rows, sub_id, out,"),
                ("    d: pl.DT_INT32,\n", "    rows: pl.Tensor[[N], pl.DT_INT32],\n"))
    file = read(SourceFile.parse(text, "scatter.py"))
    trace = Interpreter(file, file.kernels[0].node, Config()).run()
    stores = [f for core in trace.events for ev in core if ev.stage == "scale_store" for f in ev.writes
              if f.key == ("GM", "out")]
    assert stores and all(f.window and f.r0 == 0 and f.c0 == 0 for f in stores)


_SCATTER = '''
import pypto_pro.language as pl


@pl.jit(auto_mutex=True)
def k(a: pl.Tensor[[16, 32], pl.DT_FP32], ix: pl.Tensor[[16, 32], pl.DT_INT32],
      out: pl.Tensor[[16, 32], pl.DT_FP32]):
    with pl.section_vector():
        x = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32), addrs=0x0, mutex_ids=[0]).current()
        i = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_INT32), addrs=0x800,
                               mutex_ids=[1]).current()
        o = pl.make_tile_group(type=pl.TileType(shape=[16, 32], dtype=pl.DT_FP32), addrs=0x1000,
                               mutex_ids=[2]).current()
        pl.load(x, a, [0, 0])
        pl.load(i, ix, [0, 0])
        pl.OP
        pl.store(out, o, [0, 0])
'''


@pytest.mark.parametrize("op, cover", [("add(o, x, x)", True), ("scatter(o, x, i)", False),
                                       ("gathermask(o, x, pattern_mode=1)", False)])
def test_an_op_that_may_write_part_of_its_destination_does_not_overwrite_it(op, cover):
    # `scatter` writes the elements its indices name, `gathermask` the columns its pattern picks
    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile
    from pto_transpile.soundness.interp import Config, Interpreter

    file = read(SourceFile.parse(_SCATTER.replace("pl.OP", f"pl.{op}"), "k.py"))
    trace = Interpreter(file, file.kernels[0].node, Config()).run()
    name = op.split("(")[0]
    feet = [f for core in trace.events for ev in core if ev.op == name for f in ev.writes]
    assert feet and all(f.window is not cover for f in feet)


@pytest.mark.parametrize("rows, cover", [(64, True), (32, False)])
def test_a_matmul_writes_its_destination_whole_only_when_lhs_rows_by_rhs_columns_fill_it(rows, cover):
    from pathlib import Path

    from pto_transpile.read.reader import read
    from pto_transpile.read.source import SourceFile
    from pto_transpile.soundness.interp import Config, Interpreter

    text = (Path(__file__).resolve().parents[2] / "examples" / "seed_demo.py").read_text()
    moves = "    pl.move(left, cur_a)\n    pl.move(right, b_slot)\n"
    text = edit(text, (moves + "    pl.matmul(acc, left, right)\n",
                       moves + f"    pl.set_validshape(left, [{rows}, TILE])\n    pl.matmul(acc, left, right)\n"))
    file = read(SourceFile.parse(text, "seed_demo.py"))
    trace = Interpreter(file, file.kernels[0].node, Config()).run()
    feet = [f for ev in trace.events[0] if ev.op == "matmul" and ev.stage == "stage1" for f in ev.writes]
    assert len(feet) > 1 and all(f.window is not cover for f in feet)
