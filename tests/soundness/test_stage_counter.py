"""A count a stage keeps in a struct field (`st.c = st.c + 1` in a stage) is refused for every
trip count: a stage's own changes are not followed across iterations. The refusal used to ask
for "a counter (`x = x + c`)", which the stage already wrote; it now says where the counter goes
(the loop body, outside the stages), and the kernel so changed is accepted and runs as the
serial one (a probe's note on a hint that did not lead to a fix)."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import codes, transpile
from sim_runtime import verify

#: residue_defect.py with its stage `mark` counting the tasks in a struct field instead
KERNEL = edited((Path(__file__).parent / "kernels" / "residue_defect.py").read_text(), [
    ("    if ki == n - 1 and ki % 3 == 2:\n        st.scale = 2.0\n", "    st.c = st.c + 1\n"),
    ("st = pl.struct(scale=1.0)", "st = pl.struct(scale=1.0, c=0)")])
_IN_LOOP_BODY = [("            mark(ki, n, st)\n", "            st.c = st.c + 1\n")]


def _errors(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.is_error]


def test_a_count_a_stage_keeps_is_refused_with_a_hint_that_names_where_it_goes():
    ((code, message),) = _errors(KERNEL)
    assert code == codes.PIPELINE_NOT_PROVEN
    assert "field `st.c` carries a value from one iteration to the next" in message
    assert "step it in the loop body, outside the stages, as a counter (`st.c = st.c + 1`)" in message


def test_the_counter_stepped_in_the_loop_body_is_proven_and_runs_as_the_serial_kernel():
    text = edited(KERNEL, _IN_LOOP_BODY)
    assert _errors(text) == []
    code = transpile(text, path="k.py").code
    for tiles in (1, 5):
        rows = verify(text, code, "kernel", path="k.py", shapes={"a": (32 * tiles, 32), "out": (32 * tiles, 32)},
                      scalars={"n": tiles}).rows
        assert [row.verdict for row in rows] == ["ok", "ok"], tiles
