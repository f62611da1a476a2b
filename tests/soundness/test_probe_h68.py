"""More values carried across iterations (a hostile probe, h68, after test_probe_h67.py): each
kernel doubles a number every iteration and shifts the vector stage's store once it passes 1024,
wrong from 12 row blocks on the emulator, past every count the check runs. Each was accepted:

* the doubling on one line (`if n_blocks > 0: x = x * 2`): a one-line body was left out of the
  names the loop binds;
* in a field of a struct held in a list, in another struct, or of a struct-array entry, or a
  field holding a run-time value doubled by a helper: only plain numbers in fields of structs
  bound to a name were compared;
* in the default of a function defined in the kernel (`def bump(box=[1])`), or through a default
  read where the `def` stands (`def twice(v=x)`).

And a per-iteration temporary bound in one vector section and read by the next (`row = i *
BLOCK`) was refused as carried: on a vector core the section runs in line (read_first per core
kind, as for carried tiles)."""

from __future__ import annotations

import pytest
from test_probe_h67 import LOOP, TILED, _shifted

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

TEST = "        sh = 0\n        if {x} > 1024:\n            sh = 1\n"
CASES = {
    "one-line if": _shifted("    x = 1\n", "        if n_blocks > 0: x = x * 2\n" + TEST.format(x="x")),
    "one-line field": _shifted("    st = pl.struct(n=1)\n", "        if n_blocks > 0: st.n = st.n * 2\n"
                               + TEST.format(x="st.n")),
    "struct in a struct": _shifted("    st = pl.struct(inner=pl.struct(n=1))\n", "        st.inner.n = st.inner.n * 2\n"
                                   + TEST.format(x="st.inner.n")),
    "struct in a list": _shifted("    box = [pl.struct(n=1)]\n", "        box[0].n = box[0].n * 2\n"
                                 + TEST.format(x="box[0].n")),
    "struct array entry": _shifted("    ctxs = pl.struct_array(2, 'Ctx', n=1)\n", "        ctxs[0].n = ctxs[0].n * 2\n"
                                   + TEST.format(x="ctxs[0].n")),
    "run-time field by a helper": edited(
        _shifted("    st = pl.struct(n=n_blocks)\n", "        dbl(st)\n" + TEST.format(x="st.n // n_blocks")),
        [("\n\n@pl.pipeline.stage\ndef project(",
          "\n\ndef dbl(s):\n    s.n = s.n * 2\n\n\n@pl.pipeline.stage\ndef project(")]),
    "mutable default": _shifted("    def bump(box=[1]):\n        box[0] = box[0] * 2\n        return box[0]\n\n",
                                "        v = bump()\n" + TEST.format(x="v")),
    "default read by a def": _shifted("    x = 1\n", "        def twice(v=x):\n            return v * 2\n\n"
                                      "        x = twice()\n" + TEST.format(x="x")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_value_carried_and_changed_is_refused(name):
    errors = error_messages(transpile(CASES[name], path="k.py", preload=1))
    assert errors and ("carries a value from one iteration to the next" in errors[0]
                       or "changes from one iteration of the loop to the next" in errors[0]), errors


#: the row of the task bound in a vector section and read by the stage in the next one
SECTIONED = edited(TILED, [
    ("def finish(i, sub_id, scale, out, proj_vec_db, res_db):",
     "def finish(row, sub_id, scale, out, proj_vec_db, res_db):"),
    ("pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])", "pl.store(out, res, [row + sub_id * HALF, 0])"),
    (LOOP, LOOP + "        with pl.section_vector():\n            row = i * BLOCK\n"),
    ("finish(i, sub_id, tiling.scale, out,", "finish(row, sub_id, tiling.scale, out,"),
])


def test_a_temporary_bound_in_a_section_of_its_own_kind_is_not_carried():
    assert error_messages(transpile(SECTIONED, path="k.py", preload=1)) == []


@pytest.mark.emulator
def test_it_runs_as_the_serial_kernel():
    code = transpile(SECTIONED, path="k.py", preload=1).code
    for rows, blocks in ((160, 1), (224, 2)):
        report = verify(SECTIONED, code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                        scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=blocks, seed=0)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], (rows, blocks)
