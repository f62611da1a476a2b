"""What PyPTO's JIT accepts of a tiling-key class, the check reads alike (probe h198): a field whose
values do not fit in its `bits=` is refused as the JIT refuses it (it was proven, and the file did
not load on the emulator); `values=range(3)` is a list of distinct integers; an `is_valid` bound by
an assignment (`lambda`, `staticmethod(f)`) is named as what the check does not run, not as a field
it cannot enumerate."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import error_messages
from pto_transpile import transpile

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
FIELD = "    ApplyRelu = TilingKeyField(bits=1, values=[0, 1])\n"


def _keyed(field: str) -> str:
    assert FIELD in TILED
    return TILED.replace(FIELD, field)


def test_values_past_the_bits_are_refused():
    text = _keyed("    ApplyRelu = TilingKeyField(bits=1, values=[0, 1, 2])\n")
    errors = error_messages(transpile(text, path="k.py"))
    assert errors and "its 3 values do not fit in 1 bit(s)" in errors[0], errors


def test_values_of_a_range_are_read():
    assert error_messages(transpile(_keyed("    ApplyRelu = TilingKeyField(bits=2, values=range(3))\n"),
                                    path="k.py")) == []


@pytest.mark.parametrize("is_valid", ["lambda self, key: True", "staticmethod(lambda key: True)"])
def test_an_is_valid_bound_by_an_assignment_is_named(is_valid):
    errors = error_messages(transpile(_keyed(FIELD + f"    is_valid = {is_valid}\n"), path="k.py"))
    assert errors and "binds `is_valid` by an assignment" in errors[0], errors
