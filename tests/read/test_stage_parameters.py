"""A stage's arguments bind its parameters as Python binds them: positional-only ones too
(`def st(ki, sub_id, /, out, x_db)`). They were left out, so every argument bound the
parameter to its left and a valid kernel was refused (PTO033: the buffer the call passes
"used only by" the other stage)."""

from __future__ import annotations

import pytest

import skeleton as ex
from helpers import error_messages
from pto_transpile import transpile


@pytest.mark.parametrize("preload", [1, 2])
def test_positional_only_parameters_bind_their_arguments(preload):
    text = ex.kernel(st=ex.ST.replace("def st(ki, sub_id, out, x_db):", "def st(ki, sub_id, /, out, x_db):"))
    assert error_messages(transpile(text, path="k.py", preload=preload)) == []


@pytest.mark.emulator
def test_the_emulator_runs_them():
    from sim_runtime.verify import verify

    text = ex.kernel(st=ex.ST.replace("def st(ki, sub_id, out, x_db):", "def st(ki, sub_id, /, out, x_db):"))
    code = transpile(text, path="k.py", preload=2).code
    report = verify(text, code, "kernel", path="k.py")
    assert [row.verdict for row in report.rows] == ["ok", "ok"], [row.message for row in report.rows]
