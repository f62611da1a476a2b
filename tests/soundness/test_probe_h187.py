"""Probes h187 and h189: vector functions. `vf.full(w, m, dtype=pl.DT_INT32)` broadcasts a lane of the
register `w`, whose lanes it keeps (PyPTO infers the dtype from the source register; the emulator
ignores `dtype=` there): the check took the 4-byte lanes `dtype=` names, placed a 12-byte store of
an int64 register inside `scr`, and proved a kernel whose stage4 reads the 4 bytes the store
writes past it. And a vector function computing `int(1e308 * 10.0)` or `1 << (1 << 40)` in a
branch that may not run crashed the check (an OverflowError, a MemoryError: PTO099, exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_probe_h76 import _lanes, _wrong_on_the_emulator

from helpers import edited, error_messages
from pto_transpile import transpile

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
BROADCAST = ("    x = vf.full(v)\n", "    w = vf.full(v)\n    x = vf.full(w, m, dtype=pl.DT_INT32)\n")


#: probe h189: broadcasts of an int64 register whose lanes the check does not know (made by an op
#: it does not read, handed in by a caller, returned by a call, unpacked from a pair) took the
#: lanes `dtype=` names too
UNKNOWN_SOURCE = {
    "arange": [("    x = vf.full(v)\n", "    a = vf.arange(v, dtype=pl.DT_INT64)\n"
                                       "    x = vf.full(a, m, dtype=pl.DT_INT32)\n")],
    "caller": [("@pl.vector_function\ndef fill_vf(", "@pl.vector_function\ndef bcast_vf(t, r, m):\n"
                "    x = vf.full(r, m, dtype=pl.DT_INT32)\n    vf.store_align(t, x, m)\n\n\n"
                "@pl.vector_function\ndef fill_vf("),
               ("    x = vf.full(v)\n    vf.store_align(t, x, m)\n", "    a = vf.full(v)\n    bcast_vf(t, a, m)\n")],
    "call": [("@pl.vector_function\ndef fill_vf(", "@pl.vector_function\ndef widen_vf(v):\n    return vf.full(v)\n\n\n"
              "@pl.vector_function\ndef fill_vf("),
             ("    x = vf.full(v)\n", "    x = vf.full(widen_vf(v), m, dtype=pl.DT_INT32)\n")],
    "pair": [("    x = vf.full(v)\n", "    w = vf.full(v)\n    lo, hi = vf.de_interleave(w, w)\n"
                                     "    x = vf.full(lo, m, dtype=pl.DT_INT32)\n")],
}


@pytest.mark.parametrize("preload", [1, 2])
@pytest.mark.parametrize("source", ["known", *UNKNOWN_SOURCE])
def test_a_broadcast_of_a_wider_register_keeps_its_lanes(preload, source):
    text = edited(_lanes(), [BROADCAST] if source == "known" else UNKNOWN_SOURCE[source])
    errors = error_messages(transpile(text, path="k.py", preload=preload))
    assert len(errors) == 1 and "pick_vf()" in errors[0] and "fill_vf()" in errors[0], errors


def test_a_broadcast_of_a_register_of_the_tiles_lanes_is_proven():
    text = edited(_lanes(", dtype=pl.DT_INT32", "ki + 5"),
                  [("    x = vf.full(v, dtype=pl.DT_INT32)\n",
                    "    w = vf.full(v, dtype=pl.DT_INT32)\n    x = vf.full(w, m, dtype=pl.DT_INT32)\n")])
    assert error_messages(transpile(text, path="k.py", preload=1)) == []


@pytest.mark.emulator
@pytest.mark.parametrize("source", ["known", *UNKNOWN_SOURCE])
def test_the_emulator_writes_the_source_registers_lanes(source):
    assert _wrong_on_the_emulator(edited(_lanes(), [BROADCAST] if source == "known" else UNKNOWN_SOURCE[source]),
                                  (8, 64))


#: examples/tiled_scale.py's epilogue as a vector function that stores past `dst` at `far` where
#: `spill` (the scale, 0.5 in the example) is negative
SPILLING = [("import pypto_pro.language as pl\n",
             "import pypto_pro.language as pl\nfrom pypto_pro.language import Vf as vf\n"),
            ("    epilogue(res, proj, scale)", "    scale_vf(res, proj, scale)"),
            ("@pl.jit(", "@pl.vector_function\ndef scale_vf(dst, src, spill):\n"
                         "    p32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n"
                         "    x = vf.load_align(src, 0)\n    vf.store_align(dst, x, p32, 0)\n"
                         "    if spill < 0:\n        far = FAR\n"
                         "        vf.store_align(dst, x, p32, far)\n\n\n@pl.jit(")]


@pytest.mark.parametrize("far", ["int(1e308 * 10.0)", "1 << (1 << 40)"])
def test_arithmetic_past_what_python_computes_is_not_followed(far):
    result = transpile(edited(TILED, SPILLING).replace("FAR", far), path="k.py")
    errors = error_messages(result)
    assert errors and "internal error" not in errors[0] and "scale_vf" in errors[0], errors
