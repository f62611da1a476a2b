"""Probe h195: messages that named the wrong construct. A stage defining a generator of its own
was called a generator itself; a consumer stage called inside an expression (`_ = st(...) if c
else None`, `assert st(...) is None`) left its cross-core group "used only by" the producer (PTO033)
with nothing about the call pto-transpile does not pipeline."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import edited, error_messages
from pto_transpile import transpile


def test_a_generator_a_stage_defines_is_named():
    text = edited(kernel("dynamic_rows.py"), [(
        "    pl.relu(y, c_vec)\n",
        "    def halves(n):\n        yield 0\n        yield n\n\n    for _h in halves(1):\n        pass\n"
        "    pl.relu(y, c_vec)\n")])
    errors = error_messages(transpile(text, path="k.py"))
    assert errors and "`scale_store` defines the generator `halves`" in errors[0], errors


@pytest.mark.parametrize("statement", ["_ = CALL if ki >= 0 else None", "assert CALL is None"])
def test_a_stage_called_inside_an_expression_is_named(statement):
    call = "scale_store(ki, sub_id, out, c_vec_db, y_db)"
    text = kernel("dynamic_rows.py").replace(f"            {call}", "            " + statement.replace("CALL", call))
    messages = [d.message for d in transpile(text, path="k.py").diagnostics if d.code == "PTO033"]
    assert messages and "`scale_store` is given it in a call inside an expression" in messages[0], messages
