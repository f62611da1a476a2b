"""pto-transpile reads the kernel's file alone: a constant imported from another module (a
team's shared tile sizes) is not known, and the refusal says where it comes from and what to do
(study ux3: it said only that the name is "another module's object")."""

from __future__ import annotations

from helpers import demo_text, error_messages
from pto_transpile import transpile


def test_an_imported_tile_size_is_named_with_its_module_and_the_way_out():
    text = demo_text().replace("\nTILE = 64\n", "\nfrom kernels.common.consts import TILE\n", 1)
    assert "from kernels.common.consts import TILE" in text
    errors = error_messages(transpile(text, path="k.py", preload=2))
    assert errors and "it is imported from `kernels.common.consts`" in errors[0], errors
    assert "pto-transpile reads the kernel's file alone: define `TILE` in this file" in errors[0], errors
