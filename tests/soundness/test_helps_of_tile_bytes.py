"""Refusals about the bytes of a tile get helps about those bytes (probe h211): a `pl.make_tile`
whose `size=` is smaller than its shape was helped with naming `pl` ops, and a vector function
storing a row past the slot it is given with handing data over through `fwd_ids`/`bwd_ids`, though
both accesses were one stage's, on a group of one core. The bytes past the tile are said as such."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, kernel_text
from pto_transpile import transpile

KERNELS = Path(__file__).parent / "kernels"
PAST = kernel_text(KERNELS / "vf_row_past_slot.py")
#: the function kept within its tile, its two tiles plain ones each given a `size=` of half its shape
SHORT = edited(PAST, [
    ("    for i in pl.range(0, HALF + 1):\n        x = vf.load_align(src, (i % HALF) * TILE)\n",
     "    for i in pl.range(0, HALF):\n        x = vf.load_align(src, i * TILE)\n"),
    ("    y = y_db.next()\n", "    y = y_db[ki % 2]\n"),
    ("""        y_db = pl.make_tile_group(
            type=pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
            addrs=0x8000,
            mutex_ids=[12, 13],
        )
""", """        y_type = pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        y_0 = pl.make_tile(y_type, addr=0x8000, size=HALF * TILE * 2)
        y_1 = pl.make_tile(y_type, addr=0x8000 + HALF * TILE * 2, size=HALF * TILE * 2)
        y_db = (y_0, y_1)
"""),
])


def _errors(text: str) -> list:
    return [d for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_a_vector_function_past_its_slot_is_named_with_its_own_help():
    found = _errors(PAST)
    assert len(found) == 1, found
    assert "writes `y_db[0] (bytes 0..8448 from its start, past its 8192 bytes)`" in found[0].message, found[0].message
    assert found[0].hint.startswith("Keep the bytes a vector function reaches within the tiles it is given"), \
        found[0].hint


def test_the_function_kept_within_its_slot_is_accepted():
    assert _errors(edited(PAST, [("pl.range(0, HALF + 1)", "pl.range(0, HALF)")])) == []


def test_a_tile_reserved_fewer_bytes_than_its_shape_gets_the_size_help():
    found = _errors(SHORT)
    assert len(found) == 1, found
    assert "reserves 4096 bytes, fewer than the 8192 of its shape" in found[0].message, found[0].message
    assert found[0].hint.startswith("Reserve each tile at least the bytes of its shape"), found[0].hint
