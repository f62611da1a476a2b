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
SHORT = kernel_text(KERNELS / "tile_size_short.py")


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
