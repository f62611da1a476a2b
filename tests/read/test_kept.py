"""A rewritten kernel pieced from the text of what the rewrite kept equals libcst's printing of it."""

from __future__ import annotations

import pytest

from golden_cases import PRELOADS, cases
from helpers import ROOT, at_fixed_rows, spread
from pto_transpile import transpile
from pto_transpile.read import kept, source

INPUTS = [c / "input.py" for c in cases()] + sorted((ROOT / "examples").glob("*.py"))
DEMO = (ROOT / "examples" / "seed_demo.py").read_text(encoding="utf-8")
#: Comments and blank lines where libcst's assignment to statements is easy to get wrong:
#: the end of a nested block (its footer), column 0 inside the kernel, the end of the
#: kernel's body, with CRLF line ends too; and the whole file parsed (nothing to skip).
ODD = {
    "block-footer": DEMO.replace("            mutex_ids=[20, 21],\n        )\n",
                                 "            mutex_ids=[20, 21],\n        )\n        # end of the vector block\n\n"),
    "column-0": DEMO.replace("    # The pipeline loop:", "# at column 0\n\n    # The pipeline loop:"),
    "body-end": DEMO.replace("            stage4(ki, sub_id, out, out_vec_db)\n",
                             "            stage4(ki, sub_id, out, out_vec_db)\n"
                             "        # in the loop\n    # after it\n"),
    "crlf": DEMO.replace("\n", "\r\n"),
    "whole": DEMO.split("\n\n@pytest.mark.soc")[0] + "\n",
}


#: every input at every preload; the golden tests compare the goldens' outputs with their
#: reviewed files already, so the default suite runs an evenly spread sample
PAIRS = spread([pytest.param(path, preload, id=f"{path.parent.name}/{path.name}@{preload}")
                for path in INPUTS for preload in PRELOADS], 5)


@pytest.mark.parametrize("path,preload", PAIRS)
def test_pieced_equals_printed(monkeypatch, path, preload) -> None:
    text = at_fixed_rows(path.read_text(encoding="utf-8"))
    used = []

    def spy(*args):
        found = kept.definition_text(*args)
        used.append(found is not None)
        return found

    monkeypatch.setattr(source, "definition_text", spy)
    pieced = transpile(text, preload=preload, path=path.name).code
    monkeypatch.setattr(source, "definition_text", lambda *args: None)
    monkeypatch.setattr(source.SourceFile, "_find_texts", lambda self: None)
    assert transpile(text, preload=preload, path=path.name).code == pieced
    if pieced is not None and pieced != text:
        assert any(used), "no rewritten kernel was pieced"


@pytest.mark.parametrize("name", list(ODD))
def test_pieced_equals_printed_where_comments_are_odd(monkeypatch, name) -> None:
    text = ODD[name]
    assert text != DEMO
    pieced = transpile(text, preload=2, path="demo.py").code
    assert pieced is not None
    monkeypatch.setattr(source, "definition_text", lambda *args: None)
    monkeypatch.setattr(source.SourceFile, "_find_texts", lambda self: None)
    assert transpile(text, preload=2, path="demo.py").code == pieced
