"""Probe h194: Python computes an assignment's place once. `sel[i] += (i := 1)` adds to `sel[0]`
(the place is computed before the value), and `st.tag = note(used, st).tag` calls `note` once; the
model computed the augmented assignment's place again after its value (adding to `sel[1]`), and
an attribute assigned from an attribute had both objects computed a second time to compare the
fields' kinds (calling `note` twice). Each time it followed the local tile where Python stores the
cross-core slot, which the cube writes meanwhile, and proved the kernel."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile

STORE = ("    pl.store(out, y, [ki * TILE + sub_id * HALF, 0])\n",
         "BODY    pl.store(out, res, [ki * TILE + sub_id * HALF, 0])\n")
HELPERS = "def note(used, st):\n    used.append(1)\n    return st\n\n\ndef bump(idx):\n    idx[0] = 1\n    return 1\n"
NOTE = [("@pl.pipeline.stage\ndef scale_store(ki, sub_id, out, c_vec_db, y_db):",
         f"{HELPERS}\n\n@pl.pipeline.stage\ndef scale_store(ki, sub_id, out, c_vec_db, y_db, st):"),
        ("    for ki in pl.range(0, n_tiles):\n", "    st = pl.struct(tag=0)\n    for ki in pl.range(0, n_tiles):\n"),
        ("            scale_store(ki, sub_id, out, c_vec_db, y_db)",
         "            scale_store(ki, sub_id, out, c_vec_db, y_db, st)"),
        STORE]


def _kernel(body: str) -> str:
    lines = "".join(f"    {line}\n" for line in body.splitlines())
    return edited(kernel("dynamic_rows.py"), NOTE).replace("BODY", lines)


@pytest.mark.parametrize("body", [
    "sel = [0, 0]\ni = 0\nsel[i] += (i := 1)\nres = (y, c_vec)[sel[0]]",
    "sel = [0, 0]\nidx = [0]\nsel[idx[0]] += bump(idx)\nres = (y, c_vec)[sel[0]]",
    "used = []\nst.tag = note(used, st).tag\nres = y if len(used) > 1 else c_vec",
    "used = []\nnote(used, st).tag = st.tag\nres = y if len(used) > 1 else c_vec",
])
def test_a_place_is_computed_once(body):
    errors = error_messages(transpile(_kernel(body), path="k.py", preload=1))
    assert errors and ("reads `c_vec_db[0]`" in errors[0] or "which Python computes before it" in errors[0]), errors


@pytest.mark.parametrize("body", [
    "sel = [0, 0]\ni = 0\nsel[i] += bump([0])\nres = (y, c_vec)[sel[1]]",
    "used = []\nst.tag = note(used, st).tag\nres = y if len(used) == 1 else c_vec",
])
def test_the_place_python_computes_is_followed(body):
    assert error_messages(transpile(_kernel(body), path="k.py", preload=1)) == []


def test_a_place_computed_again_is_the_same_place_when_its_values_are():
    # a run-time value computed anew is a new object of the same origin; a tuple index compares by its items
    from pto_transpile.soundness.pysubset import _same_place
    from pto_transpile.soundness.values import Opaque, Sym

    assert _same_place(Opaque(("param", "n")), Opaque(("param", "n")))
    assert not _same_place(Opaque(("param", "n")), Opaque(("param", "m")))
    assert _same_place((1, Sym(2, ())), (1, 2)) and not _same_place((1, 2), (1, 3))
    assert _same_place([], []) is False
