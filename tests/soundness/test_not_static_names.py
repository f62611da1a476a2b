"""A declaration whose addresses or tile type come from a module name the check cannot know
names that name and why (probe h76): "the addresses of this group are not static" alone did not
say that `RES_ADDRS` is built by a comprehension, which the check does not run, nor what to write."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
RES = "            addrs=0x8000, mutex_ids=[10, 11],\n"


@pytest.mark.parametrize(("module", "addrs", "words"), [
    ("RES_ADDRS = [0x8000 + k * 2048 for k in range(2)]\n", "RES_ADDRS",
     "the addresses of this group are not static; `RES_ADDRS` is not a compile-time constant ("),
    ("def _addrs():\n    return [0x8000, 0x8800]\n\n\nRES_ADDRS = _addrs()\n", "RES_ADDRS",
     "`RES_ADDRS` holds what `_addrs(...)` returns or makes at module level: a value of a kind"),
], ids=["comprehension", "call"])
def test_a_group_whose_addresses_the_check_cannot_know_names_the_module_name(module, addrs, words):
    text = edited(BASE, [("HALF = BLOCK // 2\n", "HALF = BLOCK // 2\n" + module),
                         (RES, RES.replace("addrs=0x8000", f"addrs={addrs}"))])
    [d] = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert words in d.message, d.message
    if "returns or makes" in words:  # (the help of Python the check does not run said to call `pl` ops by name)
        assert d.hint.startswith("Keep what the kernel reads at module level as constants"), d.hint
    plain = edited(text, [(module, "RES_ADDRS = [0x8000, 0x8800]\n")])  # written out: read
    assert [d.message for d in transpile(plain, path="k.py").diagnostics if d.is_error] == []
