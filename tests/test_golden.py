"""Golden files: every generated kernel is reviewed output, compared byte for byte."""

from __future__ import annotations

import difflib
import os

import pytest

from golden_cases import GOLDEN, PRELOADS, cases, generate, label, long_proof
from helpers import spread

UPDATE = os.environ.get("PTO_UPDATE_GOLDEN") == "1"
PARAMS = [pytest.param(c, p, id=f"{c.name}-{label(p)}") for c in cases() for p in PRELOADS]
#: the transpiles, every golden file once; the slowest proofs in the campaign tier (`long_proof`)
GENERATED = [pytest.param(c, p, id=f"{c.name}-{label(p)}",
                          marks=(pytest.mark.campaign,) if long_proof(c, p) and not UPDATE else ())
             for c in cases() for p in PRELOADS]


@pytest.mark.parametrize("case, preload", GENERATED)
def test_golden(case, preload):
    suffix, actual = generate(case, preload)
    target = case / f"expected_{label(preload)}{suffix}"
    stale = case / f"expected_{label(preload)}{'.diag' if suffix == '.py' else '.py'}"
    if UPDATE:
        target.write_text(actual, encoding="utf-8")
        if stale.exists():
            stale.unlink()
        return
    assert not stale.exists(), f"{stale.name} exists but the run produced {target.name}; regenerate the goldens"
    assert target.exists(), f"missing {target}; run: PTO_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py"
    expected = target.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            fromfile=str(target), tofile="generated"))
        pytest.fail(f"{target.name} differs from the generated output:\n{diff}\n"
                    "If the change is intended: PTO_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py")


def _reviewed(case, preload) -> str:
    """The golden file's text: test_golden checks it is what the transpiler writes."""
    target = case / f"expected_{label(preload)}.py"
    if not target.exists():
        pytest.skip("this preload is rejected (see the .diag golden)")
    return target.read_text(encoding="utf-8")


@pytest.mark.parametrize("case, preload", spread(PARAMS, 6))
def test_golden_output_reads_back_with_libcst(case, preload):
    """pto-transpile reads its own output back (a generated kernel is left as written)."""
    import libcst as cst

    cst.parse_module(_reviewed(case, preload))


@pytest.mark.parametrize("case, preload", PARAMS)
def test_golden_output_compiles_and_keeps_comments(case, preload):
    import io
    import tokenize

    actual = _reviewed(case, preload)
    compile(actual, str(case / "out.py"), "exec")

    def comments(text):
        return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]

    source = (case / "input.py").read_text(encoding="utf-8")
    out_comments = comments(actual)
    for c in comments(source):
        assert c in out_comments, f"comment lost: {c}"


def test_every_example_is_a_golden_case():
    """The bundled examples are reviewed like the goldens: each is some case's input."""
    inputs = {(c / "input.py").read_text(encoding="utf-8") for c in cases()}
    examples = sorted((GOLDEN.parent / "examples").glob("*.py"))
    assert examples
    for example in examples:
        assert example.read_text(encoding="utf-8") in inputs, \
            f"{example.name} is not golden/<case>/input.py of any case"
