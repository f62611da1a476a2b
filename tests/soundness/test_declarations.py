"""Tile declarations the hardware does not take are refused where they are written (probe h76):
a shape with no element, a `valid_shape` of another rank, a group at a negative address. The
check accepted each, and the emulator refused the declaration in the serial run itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
RES = """        res_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000, mutex_ids=[10, 11],
"""


@pytest.mark.parametrize(("old", "new", "code", "words"), [
    ("shape=[HALF, BLOCK]", "shape=[0, BLOCK]", codes.PIPELINE_NOT_PROVEN, "has no element"),
    ("target_memory=pl.MemorySpace.Vec)", "target_memory=pl.MemorySpace.Vec, valid_shape=[1])",
     codes.PIPELINE_NOT_PROVEN, "gives `valid_shape` 1 entry for a shape of 2 dimensions"),
    ("addrs=0x8000", "addrs=-0x8000", codes.TILE_OUTSIDE_MEMORY,
     "slot 0 of tile group `res_db` in Vec starts at -0x8000, below the first byte of the memory"),
], ids=["empty shape", "valid shape rank", "negative address"])
def test_a_declaration_the_hardware_does_not_take_is_refused_at_it(old, new, code, words):
    text = edited(BASE, [(RES, RES.replace(old, new))])
    [d] = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert d.code == code and words in d.message, d
    group = text.splitlines().index("        res_db = pl.make_tile_group(") + 1
    assert d.line == (group if code == codes.TILE_OUTSIDE_MEMORY else group + 1), d.line  # the group, or its type
