"""A tile-type factory that branches on whether a layout was given (`if layout is None:`), the
way production helpers default an argument, is followed as Python runs it: a default of None is
None, and no value the model holds but None is None. Both were unknown, and the factory was
refused as "`return` under a condition the check cannot decide" (study ux2)."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages
from pto_transpile import transpile

KERNEL = (Path(__file__).parent / "kernels" / "ux2_act_matmul.py").read_text(encoding="utf-8")
FACTORY = ("def tile_type(rows, cols, mem):\n"
           "    return pl.TileType(shape=[rows, cols], dtype=pl.DT_FP32, target_memory=mem)\n")
BRANCHING = ("def tile_type(rows, cols, mem, layout=None):\n"
             "    if layout is None:\n"
             "        return pl.TileType(shape=[rows, cols], dtype=pl.DT_FP32, target_memory=mem)\n"
             "    return pl.TileType(shape=[rows, cols], dtype=pl.DT_FP32, target_memory=mem, layout=layout)\n")
RES = "type=tile_type(HALF, N, pl.MemorySpace.Vec), addrs=0x8000"
GIVEN = "type=tile_type(HALF, N, pl.MemorySpace.Vec, pl.ND), addrs=0x8000"


def test_a_factory_testing_its_default_none_is_followed_both_ways():
    text = edited(KERNEL, [(FACTORY, BRANCHING), (RES, GIVEN)])
    assert error_messages(transpile(text, path="k.py", preload=2)) == []


def test_the_arm_taken_is_the_one_python_takes():
    # the arm for a given layout makes the tile 64 times as wide, so that the store of its rows
    # reaches past the tensor's columns: refused only when `layout is None` is decided as Python does
    wide = BRANCHING.replace("shape=[rows, cols], dtype=pl.DT_FP32, target_memory=mem, layout",
                             "shape=[rows, cols * 64], dtype=pl.DT_FP32, target_memory=mem, layout")
    assert error_messages(transpile(edited(KERNEL, [(FACTORY, wide)]), path="k.py", preload=2)) == []
    given = edited(KERNEL, [(FACTORY, wide), (RES, GIVEN)])
    errors = error_messages(transpile(given, path="k.py", preload=2))
    assert errors and "pl.store(out, res" in errors[0], errors
