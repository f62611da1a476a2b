"""Bugs that ruff and mypy found in pto_transpile/, each pinned by the input that showed it."""

from __future__ import annotations

import skeleton as ex
from pto_transpile.driver import transpile


def test_module_level_unpacking_of_a_call_is_read() -> None:
    """`A, B = divmod(7, 2)` binds names with no constant value (it was an internal error)."""
    text = ex.kernel(constants=ex.CONSTANTS + "\nA, B = divmod(7, 2)")
    result = transpile(text, path="kernel.py")
    assert [d.code for d in result.diagnostics] == [] and result.code is not None
