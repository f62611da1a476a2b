"""A tile type bound once at module level (`HALF_VEC = pl.TileType(...)`, then `type=HALF_VEC`) is
the type its call declares, for the reader (memory space, slot size) and for the soundness check
alike (probe h93: refused with PTO052 and PTO028, whose helps did not apply). A name whose binding
at the module's end the reading cannot pin to one such call stays unknown and is refused."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages, restamped
from pto_transpile import transpile

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
INLINE = "type=pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),"
TYPE = "HALF_VEC = pl.TileType(shape=[HALF, BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n"
HALF_LINE = "HALF = BLOCK // 2  # dual mode splits along M: each AIV finishes one half\n"


def _named(text: str, binding: str = TYPE) -> str:
    """`text` with both half-size Vec tile types written `type=HALF_VEC`, bound by `binding`."""
    assert text.count(INLINE) == 2
    return edited(text.replace(INLINE, "type=HALF_VEC,"), [(HALF_LINE, HALF_LINE + binding)])


def test_a_module_tile_type_is_the_type_its_call_declares():
    named = transpile(_named(EXAMPLE), path="k.py")
    inline = transpile(EXAMPLE, path="k.py")
    assert error_messages(named) == [] and error_messages(inline) == []
    assert named.code == restamped(_named(inline.code))  # the same program, the type written as in the input


def test_its_slot_size_places_the_tiles():
    """`res_db` moved onto the second slot of `proj_vec_db` (slots of 16 x 32 x 4 bytes): the same
    verdict as with the types written inline."""
    overlap = [("addrs=0x8000,\n            mutex_ids=[10, 11]", "addrs=0x0800,\n            mutex_ids=[10, 11]")]
    named = error_messages(transpile(_named(edited(EXAMPLE, overlap)), path="k.py"))
    inline = error_messages(transpile(edited(EXAMPLE, overlap), path="k.py"))
    assert named == inline
    assert any("tile 0 of `res_db` overlaps tile 1 of `proj_vec_db` in `Vec`" in e for e in named), named


def test_the_last_binding_counts():
    """Rebound to an Acc type: the cross-core group lives in Acc, which PTO028 refuses."""
    acc = TYPE + TYPE.replace("Vec", "Acc")
    errors = error_messages(transpile(_named(EXAMPLE, acc), path="k.py"))
    assert any("cross-core buffer `proj_vec_db` lives in `Acc`" in e for e in errors), errors


def test_a_type_bound_under_a_runtime_test_stays_unknown():
    text = _named(EXAMPLE, "import os\n\nif os.environ.get('WIDE'):\n    " + TYPE + "else:\n    "
                  + TYPE.replace("shape=[HALF, BLOCK]", "shape=[BLOCK, BLOCK]"))
    assert error_messages(transpile(text, path="k.py"))


def test_a_function_rebinding_it_through_global_keeps_it_unknown():
    text = _named(EXAMPLE, TYPE + "\n\ndef _widen():\n    global HALF_VEC\n    HALF_VEC = pl.TileType(shape=[BLOCK, "
                  "BLOCK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n\n\n_widen()\n")
    assert error_messages(transpile(text, path="k.py"))
