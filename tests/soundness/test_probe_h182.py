"""Probe h182: a list of tiles of two shapes that rotates (`ts = ts[1:] + ts[:1]`, twelve tiles of
16 rows and one of 8), read by `ts[0].shape[0] == 8`: every tile was one mark in the comparison of
iteration starts, so the list looked the same at each, while a kernel reads a tile's shape;
from the 13th iteration on the cube loaded what the vector core stored one iteration before
(`probed.loads_out`; accepted, racing on the emulator from 14 tiles). A tile is compared by its
shape now, as a tensor is."""

from __future__ import annotations

from probed import loads_out

from helpers import error_messages
from pto_transpile import transpile

TILES = ("    t1 = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),"
         " addr=0x8000)\n"
         "    t2 = pl.make_tile(pl.TileType(shape=[8, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),"
         " addr=0x8000)\n")


def test_a_rotating_list_of_tiles_of_two_shapes_is_refused():
    body = "        f: pl.DT_INT32 = (ts[0].shape[0] == 8) * 4096\n        ts = ts[1:] + ts[:1]\n"
    errors = error_messages(transpile(loads_out(TILES + "    ts = [t1] * 12 + [t2]\n", body), path="k.py", preload=2))
    assert errors and "`ts` changes from one iteration of the loop to the next" in errors[0], errors


def test_a_rotating_list_of_tiles_of_one_shape_is_proven():
    body = "        f: pl.DT_INT32 = (ts[0].shape[0] == 8) * 4096\n        ts = ts[1:] + ts[:1]\n"
    result = transpile(loads_out(TILES + "    ts = [t1] * 12 + [t1]\n", body), path="k.py", preload=2)
    assert result.ok, error_messages(result)
