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


ALIAS_MESSAGE = ("stage call `finish` is in `with {header}:`, which is `pl.section_vector()` under another name; the "
                 "transform knows a section by its `pl` name")


@pytest.mark.parametrize("where", ["module", "kernel"])
def test_a_section_under_another_name_is_named_once_with_the_fix(where):
    """`sv = pl.section_vector` then `with sv():` (probe h75). Before, a module alias gave three
    errors, PTO070 "bound to `pl.section_vector`, not a function", a generic PTO009 and a PTO012
    about the cube stages around the call, and a kernel-local one the generic PTO009 only."""
    bind = ("\nBLOCK = 32\n", "\nBLOCK = 32\nsv = pl.section_vector\n") if where == "module" else \
        ("    for i in pl.range(0, n_blocks):\n", "    sv = pl.section_vector\n    for i in pl.range(0, n_blocks):\n")
    text = edited(BASE, [bind, (IN_LOOP, IN_LOOP.replace("pl.section_vector()", "sv()"))])
    errors = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    [d] = [d for d in errors if d.code == codes.STAGE_IN_PLAIN_WITH]
    assert d.message == ALIAS_MESSAGE.format(header="sv()"), d.message
    assert d.hint == "Write the header as `with pl.section_vector():`", d.hint
    assert codes.STAGES_NOT_ALTERNATING not in {e.code for e in errors}
    if where == "module":  # the call of the alias itself, where PTO070 judges module names
        [alias] = [e for e in errors if e.code == codes.CALLED_NAME_NOT_FUNCTION]
        assert alias.message.endswith("calls `sv`, which at the end of the module is `pl.section_vector` under "
                                      "another name"), alias.message
        assert alias.hint.startswith("Call `pl.section_vector` by its name"), alias.hint
        assert len(errors) == 2, [e.message for e in errors]
    else:
        assert len(errors) == 1, [e.message for e in errors]
    fixed = edited(text, [("sv()", "pl.section_vector()")])
    assert [e.message for e in transpile(fixed, path="k.py").diagnostics if e.is_error] == []
