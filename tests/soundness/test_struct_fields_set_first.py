"""A struct field a stage sets before it can read it: what the stage receives in it is never seen,
so the check does not compare it (probe h241: refused for a value nobody reads; forced, the
emulator ran it as the serial kernel). A field read first, or one the prefix may reach by another
name, is compared as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = Path(__file__).parent / "kernels" / "h241_struct_field_set_first.py"
SET = "    st.bias = pl.getval(factors, ki)\n"


@pytest.mark.parametrize("preload", [1, 2])
def test_a_field_set_first_is_not_compared_and_the_kernel_runs_as_the_serial_one(preload):
    text = kernel_text(KERNEL)
    result = transpile(text, path="k.py", preload=preload)
    assert error_messages(result) == []
    report = verify(text, result.code, "kernel")
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


@pytest.mark.parametrize("edit", [
    SET.replace("= pl", "= st.bias + pl"),  # read by the assignment itself
    "    before = st.bias\n" + SET + "    st.bias = st.bias + before\n",  # read by a statement before it
    "    pl.getval(factors, ki)\n" + SET,  # a statement of another kind ends the prefix
], ids=["read-by-the-value", "read-before", "prefix-ended"])
def test_a_field_the_stage_may_read_first_is_compared(edit):
    text = kernel_text(KERNEL).replace(SET, edit)
    assert edit in text
    messages = error_messages(transpile(text, path="k.py", preload=1))
    assert any("receives field `bias` of `st`" in m for m in messages), messages
