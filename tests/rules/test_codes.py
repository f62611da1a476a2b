"""The table of rule codes (`pto_transpile/codes.py`) is the only place a code is written."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pto_transpile import codes
from pto_transpile.rules import registry

PACKAGE = Path(codes.__file__).resolve().parent
CODE = re.compile(r"PTO\d{3}")


def _table() -> dict[str, str]:
    """Constant name -> code, for every code constant of the table."""
    return {name: value for name, value in vars(codes).items()
            if name.isupper() and isinstance(value, str) and CODE.fullmatch(value)}


def test_table_and_registry_agree() -> None:
    table = _table()
    rules = registry()
    assert len(set(table.values())) == len(table), "two constants share a code"
    assert sorted(table.values()) == sorted(rules), "the table and the rule modules list different codes"
    for name, code in table.items():
        assert rules[code].name == name.lower().replace("_", "-"), f"{name} = {code!r} is rule {rules[code].name}"


def _code_literals(path: Path) -> list[str]:
    """`line: 'PTO012'` for each string constant of `path` that is a rule code on its own."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [f"{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.fullmatch(node.value)]


def test_no_code_literal_outside_the_table() -> None:
    found = {str(p.relative_to(PACKAGE)): _code_literals(p)
             for p in sorted(PACKAGE.rglob("*.py")) if p.name != "codes.py"}
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_the_literal_search_sees_a_code() -> None:
    """The search above would fail on a code written as a literal (it is not vacuous)."""
    assert _code_literals(PACKAGE / "codes.py")
