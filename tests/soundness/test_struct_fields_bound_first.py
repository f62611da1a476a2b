"""A struct field every iteration binds before anything reads it (`st.g = 0.5 + 2.0 * (j % 2)`
at the top of the loop body) carries nothing from one iteration to the next, as a local bound so
does not (probe h101: refused as a field that "carries a value from one iteration to the next",
with a help the kernel followed). A field read first, by name or through the whole struct handed
to a stage, still carries its value and is judged as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

SCALE = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
BIND = "        st.g = 0.5 + 2.0 * (j % 2)\n        j = j + 1\n"
CALL = "            finish(i, sub_id, tiling.scale, out, proj_vec_db, res_db)\n"
KERNEL = edited(SCALE, [
    ("    epilogue(res, proj, scale)\n", "    epilogue(res, proj, scale.g)\n"),
    (LOOP, '    j = 0\n    st = pl.struct("Gain", g=0.0)\n' + LOOP + BIND),
    (CALL, "            finish(i, sub_id, st, out, proj_vec_db, res_db)\n")])
CARRIES = "field `st.g` carries a value from one iteration to the next"


@pytest.mark.parametrize("preload", [1, 2])
def test_a_field_bound_before_any_read_is_proven_and_runs_as_the_serial_kernel(preload):
    result = transpile(KERNEL, path="k.py", preload=preload)
    assert error_messages(result) == []
    for rows, blocks in ((160, 2), (224, 3)):
        report = verify(KERNEL, result.code, "tiled_scale_kernel", shapes={"a": (rows, 32), "out": (rows, 32)},
                        scalars={"ApplyRelu": 0, "scale": 0.5}, block_dim=blocks)
        assert [r.verdict for r in report.rows] == ["ok", "ok"], (rows, report.rows)


@pytest.mark.parametrize("edit", [
    (BIND, "        st.g = 3.0 - st.g\n"),  # read, then bound
    # bound under a test of the run (one a tiling-key instance decides runs in line: test_key_decided_bindings)
    (BIND, "        if j % 3 == 1:\n            st.g = 0.5 + 2.0 * (j % 2)\n        j = j + 1\n"),
    # the stage is handed the struct before the body binds the field: it reads the last iteration's
    (BIND, "        j = j + 1\n"),
], ids=["read-first", "under-a-test", "handed-first"])
def test_a_field_read_before_it_is_bound_is_still_judged(edit):
    text = edited(KERNEL, [edit])
    if edit[1] == "        j = j + 1\n":
        text = edited(text, [("            finish(i, sub_id, st, out, proj_vec_db, res_db)\n",
                              "            finish(i, sub_id, st, out, proj_vec_db, res_db)\n"
                              "        st.g = 0.5 + 2.0 * (j % 2)\n")])
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and CARRIES in messages[0], messages


def test_a_builtin_in_the_binding_reads_only_what_it_is_given():
    """`float(...)`, `min(...)` read their arguments alone; a call of another name may read the
    struct (a function whose default holds it: probe h108) and stays a read."""
    text = edited(KERNEL, [(BIND, "        st.g = min(float(j % 2), 1.0) + 0.5\n        j = j + 1\n")])
    assert error_messages(transpile(text, path="k.py")) == []
    helper = "    def again(s=st):\n        return s.g\n"
    text = edited(KERNEL, [(LOOP, helper + LOOP), (BIND, "        st.g = again() + 0.5\n        j = j + 1\n")])
    messages = error_messages(transpile(text, path="k.py"))
    assert messages and CARRIES in messages[0], messages
