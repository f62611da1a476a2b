"""PTO072 about a value written as an expression in the stage call (`sub_id / 2`): the help says to
bind it to an annotated name and pass that, since an expression cannot be annotated where it is
written (probe h74: the help read "Annotate the name where it is bound (`(r0, r1)[i % 2]:
pl.DT_FP32 = ...`"). A value held in a name keeps the help to annotate that name."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime.verify import verify

BASE = (Path(__file__).parents[1] / "soundness" / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
CALL = "            finish(i, sub_id, out, proj_vec_db, res_db)\n"
#: the vector stage prints a true division of two ints it is handed, written in the call
WRITTEN = edited(BASE, [
    ("def finish(i, sub_id, out, proj_vec_db, res_db):", "def finish(i, sub_id, out, proj_vec_db, res_db, half):"),
    ("    pl.muls(res, proj, 0.5)\n", "    pl.muls(res, proj, 0.5)\n    pl.printf(\"%f\", half)\n"),
    (CALL, CALL.replace("res_db)", "res_db, sub_id / 2)")),
])
#: the same value bound to a name first
LOOP = "    for i in pl.range(0, n_blocks):\n"
NAMED = edited(WRITTEN, [(LOOP, LOOP + "        half = sub_id / 2\n"), ("res_db, sub_id / 2)", "res_db, half)")])
#: the help applied
ANNOTATED = edited(NAMED, [("        half = sub_id / 2\n", "        half: pl.DT_FP32 = sub_id / 2\n")])


def _error(text: str):
    [d] = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.CTX_FIELD_TYPE_UNKNOWN, d.message
    return d


def test_an_expression_written_in_the_call_gets_the_help_to_bind_it_to_an_annotated_name():
    d = _error(WRITTEN)
    assert d.message.startswith("`sub_id / 2` travels to stage `finish` in a ctx field"), d.message
    assert d.hint.startswith("Bind `sub_id / 2` to a name annotated with its type before the call "
                             "(`v: pl.DT_FP32 = sub_id / 2` or `pl.DT_INT32`) and pass the name"), d.hint


def test_a_name_gets_the_help_to_annotate_it():
    assert _error(NAMED).hint.startswith("Annotate the name where it is bound (`half: pl.DT_FP32 = ...`")


def test_the_help_applied_gives_a_proven_kernel_that_runs_as_the_serial_one():
    result = transpile(ANNOTATED, path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    report = verify(ANNOTATED, result.code, "kern", path="k.py", shapes={"a": (96, 32), "out": (96, 32)})
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message
