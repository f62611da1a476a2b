"""Syntax errors in Python's own words, and what only Python's compiler refuses."""

from __future__ import annotations

import pytest

from helpers import demo_text
from pto_transpile import transpile

DEMO = demo_text()

CASES = {
    # (edit, Python's message, the text the caret starts at)
    "missing comma in a call": (("            stage4(ki, sub_id, out, out_vec_db)",
                                 "            stage4(ki sub_id, out, out_vec_db)"),
                                "invalid syntax. Perhaps you forgot a comma?", "ki sub_id"),
    "missing comma between keywords": (("addrs=0x0000,\n        mutex_ids=[12, 13],",
                                        "addrs=0x0000\n        mutex_ids=[12, 13],"),
                                       "invalid syntax. Perhaps you forgot a comma?", "0x0000"),
    "duplicate parameter": (("def stage4(ki, sub_id, out, out_vec_db):", "def stage4(ki, sub_id, out, out):"),
                            "duplicate argument 'out' in function definition", "out):"),
    "break outside a loop": (("    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])",
                              "    pl.store(out, out_vec, [ki * TILE + sub_id * TILE_HALF, 0])\n    break"),
                             "'break' outside loop", "break"),
    "repeated keyword": (("pl.move(mm1_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)",
                          "pl.move(mm1_vec, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM, "
                          "acc_to_vec_mode=None)"),
                         "keyword argument repeated: acc_to_vec_mode", "acc_to_vec_mode=None"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_message_is_pythons_own_at_its_position(name):
    (old, new), message, at = CASES[name]
    text = DEMO.replace(old, new)
    [d] = transpile(text).diagnostics
    assert (d.code, d.message) == ("PTO001", f"syntax error: {message}")
    lines = text.splitlines()
    assert lines[d.line - 1][d.column - 1:].startswith(at), lines[d.line - 1]


def test_a_file_with_a_byte_order_mark_keeps_pythons_message_and_position():
    """Python's parser reads a str that starts with U+FEFF as a stray character on line 1."""
    (old, new), message, at = CASES["missing comma in a call"]
    text = "\ufeff" + DEMO.replace(old, new)
    [d] = transpile(text).diagnostics
    assert d.message == f"syntax error: {message}"
    assert text.splitlines()[d.line - 1][d.column - 1:].startswith(at)
