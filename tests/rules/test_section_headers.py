"""A section `with` is one `pl.section_*()` call with no `as`, in the pipeline loop and outside
it (probe h73). PyPTO's section is one context manager that yields no value, and the emulator
refuses any other header; before, `--check` accepted `with pl.section_vector() as sec:` and
`with pl.section_vector(), pl.section_vector():` around a stage call, since the reader took the
first item for the section and ignored the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile

BASE = (Path(__file__).parents[1] / "soundness" / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
IN_LOOP = "        with pl.section_vector():\n            finish("
PRE_LOOP = "    with pl.section_vector():\n        res_db"


def _header(old: str, header: str) -> str:
    """`BASE` with the section `with` that starts `old` written as `header` instead."""
    return edited(BASE, [(old, old.replace("with pl.section_vector():", header))])


CASES = {
    "as in the loop": (IN_LOOP, "with pl.section_vector() as sec:", "binds it to `sec`",
                       "; a section yields no value to bind"),
    "two sections in the loop": (IN_LOOP, "with pl.section_vector(), pl.section_vector():", "opens 2 sections",
                                 "; a `with` opens one section, and a stage runs in one"),
    "another manager in the loop": (IN_LOOP, "with pl.section_vector(), open(\"x\"):", "holds 2 context managers",
                                    "; move `open(\"x\")` out of the header"),
    "as before the loop": (PRE_LOOP, "with pl.section_vector() as sec:", "binds it to `sec`",
                           "; a section yields no value to bind"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_section_header_other_than_one_call_is_refused_at_the_with(case):
    old, header, fault, rest = CASES[case]
    text = _header(old, header)
    [d] = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    line = text.splitlines().index(old.splitlines()[0].replace("with pl.section_vector():", header)) + 1
    assert (d.code, d.line, d.column) == (codes.STAGE_IN_PLAIN_WITH, line, old.index("with") + 1), d
    assert d.message == f"a section `with` takes exactly one `pl.section_*()` call and no `as`, but `{header}` {fault}"
    assert d.hint.startswith("Write the header as `with pl.section_vector():`" + rest), d.hint


def test_the_plain_header_is_accepted():
    assert [d.message for d in transpile(BASE, path="k.py").diagnostics if d.is_error] == []
