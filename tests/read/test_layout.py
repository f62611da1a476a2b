"""The limits checked on Python's tree before libcst is given a text, and the statement layout."""

from __future__ import annotations

import pytest

from pto_transpile.read.layout import MAX_DEPTH, TooComplex, read_layout

DEEP = "(" * 120 + "x" + ")" * 120  #: grouping parentheses: the tree keeps none of them


@pytest.mark.parametrize("text", [
    f"@dec({DEEP})\ndef f(): pass\n",  # above a short def: the decorator stands outside its span
    "X = (\n" + "".join(f"    {i} +\n" for i in range(MAX_DEPTH + 10)) + "    0)\n",  # over many lines
    f"def f():\n    return g(a, {DEEP})\n",
])
def test_too_deep_anywhere_is_refused(text: str) -> None:
    with pytest.raises(TooComplex):
        read_layout(text)


def test_statements_sharing_a_line_are_one_and_decorators_lead_their_def() -> None:
    text = "x = 1; y = 2\n\n# about f\n@dec\ndef f():\n\tpass\n"
    layout = read_layout(text)
    assert layout.count == 2 and layout.first_indent == "\t"
    assert text[layout.bounds[1]:layout.heads[1]] == "\n# about f\n@dec\n"
    assert {"dec", "f"} <= layout.names(1)
