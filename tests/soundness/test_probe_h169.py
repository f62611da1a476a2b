"""Probe h169: the JIT takes every `TilingKeyField` among a key class's attributes for a field,
however it was made, where the check read only `NAME = TilingKeyField(...)`. A field made
through an alias (`F = TilingKeyField; B = F(...)`) or bound with another name (`B, _Z =
TilingKeyField(...), 0`) was no field to the check: the key tuple `is_valid` receives was
shifted, the instance that races (A=1, B=0) never listed, and the kernel accepted; the emulator
shows the race. A name of the class bound to a value the check cannot read is now a field it
cannot enumerate (PTO071, naming the name and the way to write it); constants stay names."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, kernel_text
from pto_transpile import transpile

ALIAS = kernel_text(Path(__file__).parent / "kernels" / "h169_key_field_alias.py")
DIRECT = edited(ALIAS, [("F = TilingKeyField\n", ""), ("B = F(bits=1", "B = TilingKeyField(bits=1")])

SPELLINGS = {
    "an alias of TilingKeyField": ALIAS,
    "a tuple of names": edited(DIRECT, [("    B = TilingKeyField(bits=1, values=[0, 1])",
                                         "    B, _Z = TilingKeyField(bits=1, values=[0, 1]), 0")]),
    "names bound together": edited(DIRECT, [("    B = TilingKeyField(bits=1, values=[0, 1])",
                                             "    B = B2 = TilingKeyField(bits=1, values=[0, 1])")]),
    "a pick from a list": edited(DIRECT, [("    B = TilingKeyField(bits=1, values=[0, 1])",
                                           "    B = [TilingKeyField(bits=1, values=[0, 1])][0]")]),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_field_the_check_cannot_read_is_refused_by_name(spelling):
    result = transpile(SPELLINGS[spelling], path="k.py")
    errors = [d for d in result.diagnostics if d.is_error]
    assert [d.code for d in errors] == ["PTO071"], [d.message for d in errors]
    assert "field `B` cannot be enumerated" in errors[0].message and "NAME = TilingKeyField(...)" in errors[0].message


def test_the_same_field_written_plainly_is_listed_and_its_race_found():
    result = transpile(DIRECT, path="k.py")
    assert [d.code for d in result.diagnostics if d.is_error] == ["PTO061"]


def test_constants_bound_together_in_the_class_are_no_fields():
    # (the fields are B and A; `key[1] == 0` keeps A = 0, where nothing races)
    plain = edited(DIRECT, [("    C = TilingKeyField(bits=1, values=[0])\n", "    X, Y = 1, 2\n    P = Q = 3\n")])
    result = transpile(plain, path="k.py")
    assert result.ok, [d.message for d in result.diagnostics if d.is_error]
