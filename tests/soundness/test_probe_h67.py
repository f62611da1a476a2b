"""Values an iteration takes from the one before, found by a hostile probe (h67) after the
day's changes: the check's runs stop before the iteration where they matter, so it must see
that they are carried.

* a slot picked in the first iteration and kept in a list or tuple of tiles (`holder[0] =
  bias_db.current()`): the held-slot rule of test_probe_h66.py looked at names holding one tile;
* a number carried and doubled (`x = n_blocks`, then `x = x * 2`): a run-time value's form or
  origin changes from one iteration to the next, which only plain numbers were checked for;
* a number carried by a walrus (`if (x := x * 2) > 1024:`) or a nested loop's target, which the
  loop's bindings left out;
* a number kept in a list beside a GM tensor (`box = [w, 1]`), which only containers of plain
  values were checked for.

The last three shift the vector stage's store one block down once the number passes 1024, where
it races with the cube store of the task after (as in test_probe_h64.py): wrong from 12 row
blocks on the emulator, past every count the check runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_probe_h66 import GROUP, _kernel

from helpers import edited, error_messages
from pto_transpile import transpile

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
SHIFT = [("def project(i, a, w_slot,", "def project(i, a, out, w_slot,"),
         ("    pl.matmul(acc, left, right)\n",
          "    pl.matmul(acc, left, right)\n    pl.store(out, acc, [i * BLOCK, 0])\n"),
         ("project(i, a, w_slot,", "project(i, a, out, w_slot,"),
         ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
          "def finish(i, sub_id, scale, sh, out, proj_vec_db, res_db):"),
         ("pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])",
          "pl.store(out, res, [(i + sh) * BLOCK + sub_id * HALF, 0])"),
         ("finish(i, sub_id, tiling.scale, out,", "finish(i, sub_id, tiling.scale, sh, out,")]


def _shifted(before: str, top: str) -> str:
    """`before` ahead of the loop, `top` at the top of its body (it sets `sh`)."""
    return edited(TILED, [*SHIFT, (LOOP, before + LOOP + top)])


DOUBLED = _shifted("    x = n_blocks\n", "        x = x * 2\n        sh = 0\n        if x > 1024 * n_blocks:\n"
                                         "            sh = 1\n")
WALRUS = _shifted("    x = 1\n", "        sh = 0\n        if (x := x * 2) > 1024:\n            sh = 1\n")
TARGET = _shifted("    x = 1\n", "        for x in pl.range(x * 2, x * 2 + 1):\n            pass\n"
                                  "        sh = 0\n        if x > 1024:\n            sh = 1\n")
BOXED = _shifted("    box = [w, 1]\n", "        box[1] = box[1] * 2\n        sh = 0\n        if box[1] > 1024:\n"
                                        "            sh = 1\n")
#: the slot of the first iteration kept in a list of tiles and read by `finish` as `holder[0]`
LISTED = _kernel(GROUP + "        spare = pl.make_tile(pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, "
                         "target_memory=pl.MemorySpace.Vec), addr=0x30000)\n        holder = [spare]\n",
                 prep="@pl.pipeline.stage\ndef prep(bias_db):\n    b = bias_db.next()\n    pl.full(b, 1.0)\n\n\n"
                      "@pl.pipeline.stage\ndef finish(i, sub_id, scale, out, proj_vec_db, res_db, holder):\n"
                      "    bias0 = holder[0]",
                 first="        if i == core_id:\n            with pl.section_vector():\n"
                       "                holder[0] = bias_db.current()\n                pl.full(holder[0], 0.0)\n",
                 bias="holder")


@pytest.mark.parametrize("text", [DOUBLED, WALRUS, TARGET, BOXED],
                         ids=["doubled run-time value", "walrus", "loop target", "list beside a tensor"])
def test_a_number_carried_and_changed_is_refused(text):
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert len(errors) == 1 and ("carries a value from one iteration to the next" in errors[0]
                                 or "changes from one iteration of the loop to the next" in errors[0]), errors


@pytest.mark.parametrize("preload", [1, 2])
def test_a_slot_kept_in_a_list_keeps_the_rotation_in_the_period(preload):
    errors = error_messages(transpile(LISTED, path="k.py", preload=preload))
    assert len(errors) == 1 and "reads `bias_db[15]`" in errors[0], errors
