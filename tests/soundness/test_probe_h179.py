"""Probe h179: a `pl.TileType` changed after it is made (`tt.layout = pl.NZ`, `tt.shape = ...`), or
made from a list changed afterwards (`valid_shape=vs`, then `vs[0] = 16`: PyPTO's type keeps `vs`
itself and reads it when a tile is made), gave later tiles another layout or valid shape than the
check's model of the type, which kept what the constructor was given: a store reaching rows the
check did not count let two stages reorder (accepted; the emulator's outputs differ). Both are
refused now; a type given a list of its own is followed."""

from __future__ import annotations

import pytest

from helpers import DEMO, edited, error_messages
from pto_transpile import transpile

ANCHOR = "    # The pipeline loop: the 4 stages, cube and vector alternating\n"
TYPE = "pl.TileType(shape=[TILE_HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec{})"


def _with(lines: str) -> str:
    return edited(DEMO.read_text(), [(ANCHOR, "    with pl.section_vector():\n" + lines + ANCHOR)])


@pytest.mark.parametrize("lines, words", [
    (f"        tt = {TYPE.format('')}\n        tt.layout = pl.NZ\n",
     "`tt.layout` changes a `pl` object after it is made"),
    (f"        tt = {TYPE.format('')}\n        tt.shape = [8, TILE]\n", "`tt.shape` changes a `pl` object"),
    (f"        vs = [8, TILE]\n        tt = {TYPE.format(', valid_shape=vs')}\n        vs[0] = TILE_HALF\n",
     "a list a `pl.TileType` was made from is changed"),
    (f"        vs = [8, TILE]\n        tt = {TYPE.format(', valid_shape=vs')}\n        vs.append(1)\n",
     "a list a `pl.TileType` was made from is changed"),
])
def test_a_tile_type_changed_after_it_is_made_is_refused(lines, words):
    errors = error_messages(transpile(_with(lines), path="k.py"))
    assert errors and words in errors[0], errors


def test_a_type_given_a_list_of_its_own_is_followed():
    lines = (f"        vs = [8, TILE]\n        tt = {TYPE.format(', valid_shape=list(vs)')}\n"
             "        vs[0] = TILE_HALF\n")
    assert transpile(_with(lines), path="k.py").ok
