"""`del` of a name is followed as Python runs it: the name is unbound from there on (probe h73).
Before, `del x` of a plain name was not modelled, and a kernel deleting, at its last iteration, a
tensor its delayed stage is given was proven: pipelined, that stage runs for the last iteration
after the loop, in the drain, where the name is gone (UnboundLocalError on the emulator)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime.verify import verify

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
CALL = "            finish(i, sub_id, out, proj_vec_db, res_db)\n"
SHAPES = {"a": (96, 32), "out": (96, 32)}

#: `out` deleted at the last iteration, after the stage given it
AT_LAST = edited(BASE, [(CALL, CALL + "        if i == n_blocks - 1:\n            del out\n")])
#: `out` deleted after the loop, where the drain has run
AFTER_LOOP = BASE + "    del out\n"
#: a value of the iteration deleted after the stage given it: the ctx ring carries it
TEMPORARY = edited(BASE, [
    ("    for i in pl.range(0, n_blocks):\n", "    for i in pl.range(0, n_blocks):\n        row = i\n"),
    (CALL, CALL.replace("finish(i,", "finish(row,") + "        del row\n"),
])
#: a name the kernel never bound
UNBOUND = edited(BASE, [(CALL, CALL + "        del spare\n")])


def _errors(text: str):
    return [d for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_a_name_a_delayed_stage_reads_in_the_drain_deleted_in_the_loop_is_refused():
    [d] = _errors(AT_LAST)
    assert d.code == codes.PIPELINE_NOT_PROVEN, d.message
    assert "`out` is read after `del out` removed it (in the generated kernel)" in d.message
    assert d.hint.startswith("Leave bound every name a stage is given (no `del` of it in the kernel)")


def test_the_emulator_shows_the_refused_kernel_wrong():
    code = transpile(AT_LAST, path="k.py", _skip_rules=["PTO061"]).code
    assert code is not None
    row = verify(AT_LAST, code, "kern", path="k.py", shapes=SHAPES).rows[-1]
    assert row.verdict != "ok" and "UnboundLocalError" in row.message, (row.verdict, row.message)


@pytest.mark.parametrize("text", [BASE, AFTER_LOOP, TEMPORARY], ids=["hint applied", "after the loop", "temporary"])
def test_what_leaves_the_name_bound_where_it_is_read_is_proven_and_runs_as_the_serial_kernel(text):
    result = transpile(text, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    for rows in (96, 160):
        shapes = {"a": (rows, 32), "out": (rows, 32)}
        assert [r.verdict for r in verify(text, result.code, "kern", path="k.py", shapes=shapes).rows] == ["ok", "ok"]


def test_deleting_a_name_never_bound_is_refused_as_python_refuses_it():
    [d] = _errors(UNBOUND)
    assert d.code == codes.UNDEFINED_NAME and "`spare` is not defined" in d.message, d.message
    # behind the rule, the check refuses it too
    [d] = [d for d in transpile(UNBOUND, path="k.py", _skip_rules=["PTO069"]).diagnostics if d.is_error]
    assert d.code == codes.PIPELINE_NOT_PROVEN and "`del spare` deletes a name this function has not bound" in d.message
