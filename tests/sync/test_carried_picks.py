"""A stage argument that picks a handle with values of the iteration (`rs[i % 2]`, a tensor
chosen by a test) is picked where the delayed stage runs, with its task's values carried in the
ctx ring (probe h73). It was passed as written: the delayed stage picked with the newest task's
values (in the drain, with those the loop ended at), and the check refused the kernel with a
message about state kept in tiles."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from helpers import edited
from pto_transpile import transpile
from pto_transpile.read.reader import read
from pto_transpile.read.source import SourceFile
from pto_transpile.sync import ctxring
from sim_runtime.verify import verify

BASE = (Path(__file__).parents[1] / "soundness" / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
CALL = "            finish(i, sub_id, out, proj_vec_db, res_db, rs[i % 2])\n"
_VEC = "pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)"
#: the vector stage multiplies by one of two preloaded tiles, picked by the row block's parity
PICKED = edited(BASE, [
    ("def finish(i, sub_id, out, proj_vec_db, res_db):", "def finish(i, sub_id, out, proj_vec_db, res_db, sel):"),
    ("    pl.muls(res, proj, 0.5)\n", "    pl.mul(res, proj, sel)\n"),
    ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n",
     "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n    c: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"),
    ("            addrs=0x8000, mutex_ids=[10, 11],\n        )\n",
     "            addrs=0xA000, mutex_ids=[12, 13],\n        )\n"
     f"        r0g = pl.make_tile_group(type={_VEC}, addrs=0x8000, mutex_ids=[10])\n"
     f"        r1g = pl.make_tile_group(type={_VEC}, addrs=0x9000, mutex_ids=[11])\n"
     "        r0 = r0g.current()\n        r1 = r1g.current()\n        pl.load(r0, c, [0, 0])\n"
     "        pl.load(r1, c, [HALF, 0])\n        rs = (r0, r1)\n"),
    ("            finish(i, sub_id, out, proj_vec_db, res_db)\n", CALL),
])
#: the tensor to store into chosen by a test of the loop variable
CHOSEN = edited(PICKED, [
    ("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n",
     "    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    odd: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"),
    (CALL, CALL.replace("out, proj_vec_db", "out if i % 2 == 0 else odd, proj_vec_db")),
])


def _parts(text: str, expr: str) -> list[str]:
    kernel = read(SourceFile.parse(text, "k.py")).kernels[0]
    return [cst.Module([]).code_for_node(p) for p in ctxring._live_parts(kernel, cst.parse_expression(expr))]


def test_the_values_a_pick_reads_of_the_iteration_are_its_carried_parts():
    assert _parts(PICKED, "rs[i % 2]") == ["i % 2"]
    assert _parts(PICKED, "out if i % 2 == 0 else a") == ["i % 2 == 0"]
    assert _parts(PICKED, "rs[sub_id]") == ["sub_id"]
    assert _parts(PICKED, "rs[0]") == [] and _parts(PICKED, "res_db.current()") == []


PICK_FILL = "_pl_ctx_0._pl_arg_finish_5_0 = i % 2\n"
CHOICE_FILL = "_pl_ctx_0._pl_arg_finish_2_0 = i % 2 == 0\n"


@pytest.mark.parametrize("text, shapes, fills", [
    (PICKED, ("a", "out"), [PICK_FILL]),
    (CHOSEN, ("a", "out", "odd"), [PICK_FILL, CHOICE_FILL]),
], ids=["tile picked by parity", "tensor chosen by a test"])
@pytest.mark.parametrize("preload", [1, 2])
def test_a_pick_by_values_of_the_iteration_is_made_with_its_tasks_values_and_runs_as_the_serial_kernel(
        text, shapes, fills, preload):
    result = transpile(text, path="k.py", preload=preload)
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    assert all(fill in result.code for fill in fills), result.code
    kernel = result.code.split("def kern")[1]
    assert "rs[i % 2]" not in kernel and "if i % 2 == 0 else" not in kernel  # no pick with the newest values
    for rows in (64, 160):
        report = verify(text, result.code, "kern", path="k.py", shapes={t: (rows, 32) for t in shapes})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


#: the stage handed a group's current slot, which the loop moves at its last iteration: no value of
#: the iteration picks it, so it is passed as written and the drain sees the moved cursor
CURRENT = edited(PICKED, [
    ("        r0 = r0g.current()\n        r1 = r1g.current()\n        pl.load(r0, c, [0, 0])\n"
     "        pl.load(r1, c, [HALF, 0])\n        rs = (r0, r1)\n",
     f"        sg = pl.make_tile_group(type={_VEC}, addrs=[0xC000, 0xD000], mutex_ids=[14, 15])\n"
     "        s0 = sg.current()\n        pl.load(s0, c, [0, 0])\n        s1 = sg.next()\n"
     "        pl.load(s1, c, [HALF, 0])\n        s2 = sg.next()\n"),
    (CALL, CALL.replace("rs[i % 2]", "sg.current()")
     + "        if i == n_blocks - 1:\n            with pl.section_vector():\n                skip = sg.next()\n"),
])


def test_a_pick_no_value_of_the_iteration_makes_is_refused_naming_both_loads_by_line():
    [d] = [d for d in transpile(CURRENT, path="k.py").diagnostics if d.is_error]
    lines = CURRENT.splitlines()
    first, second = (lines.index(f"        pl.load({s}, c, [{r}, 0])") + 1 for s, r in (("s0", "0"), ("s1", "HALF")))
    assert f"in the serial kernel it sees the kernel body at line {first}, `pl.load`" in d.message, d.message
    assert f"in the pipelined kernel the kernel body at line {second}, `pl.load`" in d.message, d.message
