"""Every rule's own examples are its tests; plus meta-tests on the catalogue and its docs.

An invalid example marks each line where a diagnostic is expected with a trailing
`# E: PTOxxx` comment (several codes: `# E: PTO010, PTO012`). The (line, code) pairs
reported for the rule's code must equal the marked ones, and no unmarked code may appear.
A valid example must produce no diagnostic at all, warnings included.
"""

from __future__ import annotations

import difflib
import importlib.util
import re
from pathlib import Path

import pytest

from pto_transpile import codes
from pto_transpile.diagnostics import Severity
from pto_transpile.driver import transpile
from pto_transpile.rules import registry
from pto_transpile.rules._example_files import FOLDER, examples_of, parse, render

ROOT = Path(__file__).resolve().parent.parent.parent
RULES = registry()

#: Rules that cannot have examples run through `transpile()`; keep this short.
NO_EXAMPLES = {
    "PTO002": "unreadable file: reported by the CLI before any text reaches transpile()",
    "PTO094": "output out of date: reported by the CLI when --check compares the -o file",
    "PTO095": "simulation failed: reported by the CLI when the emulator finds a kernel wrong",
    "PTO098": "unwritable output: reported by the CLI when the environment refuses a write",
    "PTO099": "internal error: reported by the CLI/driver when pto-transpile itself crashes",
}

#: Rules no known kernel reaches, because an earlier check always fires first (each doc
#: says which). They keep valid examples; the lead decides whether to keep the code.
UNREACHABLE = {
    # unit-tested on a hand-built graph in tests/sync/test_syncgraph.py
    "PTO047": "the serial order runs a tile's earlier user first; no kernel passing the other checks gives it",
}

HEADINGS = ("## What it checks", "## Why it matters for pipelining", "## Example", "## Use instead")

_MARK = re.compile(r"#\s*E:\s*(PTO\d{3}(?:\s*,\s*PTO\d{3})*)\s*$")
#: `# test: skip-rules=PTO043` in an example: run it with those rules switched off, for
#: backstop rules that only fire when an earlier check has missed something
_SKIP = re.compile(r"#\s*test:\s*skip-rules=([A-Z0-9, ]+)")


def skipped(text: str) -> list[str]:
    return [c.strip() for m in _SKIP.finditer(text) for c in m.group(1).split(",") if c.strip()]


def expected_marks(text: str) -> set[tuple[int, str]]:
    marks = set()
    for lineno, line in enumerate(text.splitlines(), 1):
        m = _MARK.search(line)
        if m:
            marks |= {(lineno, code.strip()) for code in m.group(1).split(",")}
    return marks


def _cases(kind: str):
    for code, rule in RULES.items():
        for i, text in enumerate(getattr(rule, kind)):
            yield pytest.param(code, text, id=f"{code}-{kind}-{i}")


def _show(diagnostics) -> str:
    return "\n".join(f"  {d.line}:{d.column} {d.code} {d.message}" for d in diagnostics) or "  (none)"


@pytest.mark.parametrize("code,text", list(_cases("invalid")))
def test_invalid_example(code: str, text: str) -> None:
    marks = expected_marks(text)
    assert any(c == code for _, c in marks), f"the example marks no `# E: {code}` line"
    result = transpile(text, path="example.py", _skip_rules=skipped(text))
    got = {(d.line, d.code) for d in result.diagnostics if d.code == code}
    want = {m for m in marks if m[1] == code}
    assert got == want, f"{code} lines differ: want {sorted(want)}, got {sorted(got)}\n{_show(result.diagnostics)}"
    marked_codes = {c for _, c in marks}
    stray = [d for d in result.diagnostics if d.code not in marked_codes]
    assert not stray, f"unmarked diagnostics:\n{_show(stray)}"
    # other marked codes must appear where marked too
    assert {(d.line, d.code) for d in result.diagnostics} == marks, _show(result.diagnostics)


@pytest.mark.parametrize("code,text", list(_cases("valid")))
def test_valid_example(code: str, text: str) -> None:
    assert not expected_marks(text), "a valid example carries `# E:` markers"
    result = transpile(text, path="example.py")
    # notes only inform (a hand-pipelined kernel is left as written); the rule's own code never
    shown = [d for d in result.diagnostics if d.severity is not Severity.NOTE or d.code == code]
    assert shown == [], _show(result.diagnostics)
    assert result.code is not None


@pytest.mark.parametrize("code", list(RULES))
def test_rule_is_documented(code: str) -> None:
    rule = RULES[code]
    assert rule.message.strip() and rule.hint.strip() and rule.title.strip() and rule.seed.strip()
    assert rule.doc.startswith(HEADINGS[0] + "\n"), f"{code}: doc starts with {rule.doc.splitlines()[0]!r}"
    positions = [rule.doc.find(h + "\n") for h in HEADINGS]
    assert -1 not in positions, f"{code}: doc lacks {[h for h, p in zip(HEADINGS, positions, strict=True) if p < 0]}"
    assert positions == sorted(positions), f"{code}: doc headings out of order"
    assert rule.doc.count("```python") >= 2, f"{code}: Example and Use instead need a ```python block each"
    if code in NO_EXAMPLES:
        assert not rule.invalid and not rule.valid, f"{code} is allow-listed but has examples: drop it from NO_EXAMPLES"
    elif code in UNREACHABLE:
        assert not rule.invalid, f"{code} has an invalid example now: drop it from UNREACHABLE"
        assert rule.valid, f"{code} has no valid example"
        assert "no kernel is known to reach" in rule.doc, f"{code}: say in the doc why it is unreachable"
    else:
        assert rule.invalid, f"{code} has no invalid example"
        assert rule.valid, f"{code} has no valid example"


def test_codes_and_names() -> None:
    names = [r.name for r in RULES.values()]
    assert len(names) == len(set(names)), "duplicate rule names"
    for code, rule in RULES.items():
        assert rule.code == code and re.fullmatch(r"PTO\d{3}", code), code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name
        assert rule.phase in ("file", "kernel", "loop", "graph", "analysis"), code
        assert (rule.check is None) == (rule.phase == "analysis"), f"{code}: analysis rules have no check, others do"
    assert set(NO_EXAMPLES) <= set(RULES) and set(UNREACHABLE) <= set(RULES)


def test_rules_doc_is_fresh() -> None:
    spec = importlib.util.spec_from_file_location("document_rules", ROOT / "scripts" / "document_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    want = module.render()
    path = ROOT / "docs" / "rules.md"
    have = path.read_text(encoding="utf-8") if path.exists() else ""
    if have != want:
        diff = "".join(difflib.unified_diff(have.splitlines(True), want.splitlines(True),
                                            "docs/rules.md (on disk)", "docs/rules.md (generated)", n=2))
        pytest.fail("docs/rules.md is stale; regenerate it with\n\n"
                    f"    .venv/bin/python scripts/document_rules.py\n\n{diff[:6000]}")


def test_a_rule_without_a_check_names_the_modules_that_raise_it():
    """The analysis raises these rules: each names where (shown by --explain and docs/rules.md),
    and each module named reports the rule's code."""
    constants = {value: name for name, value in vars(codes).items() if isinstance(value, str)}
    for code, rule in registry().items():
        if rule.check is not None:
            assert not rule.raised_by, f"{code} has a check of its own"
            continue
        assert rule.raised_by, f"{code} has no check and names no module that raises it"
        for module in rule.raised_by:
            text = (ROOT / module).read_text(encoding="utf-8")
            assert f"codes.{constants[code]}" in text, f"{module} does not report {code}"


def test_every_rule_shows_its_examples_as_literal_text_beside_it():
    """A rule's kernels are whole text in `rules/examples/<module>.md`, under the heading
    `_example_files.render` writes; no rule module builds them, and no examples file is left
    without its rule (the skeleton the tests build kernels from, tests/skeleton.py, is not
    the package's)."""
    rules_dir = ROOT / "pto_transpile" / "rules"
    by_module = {rule.module: rule for rule in RULES.values()}
    files = {p.stem for p in FOLDER.glob("*.md")}
    assert files <= set(by_module), f"examples files with no rule: {sorted(files - set(by_module))}"
    for code, rule in RULES.items():
        assert (rule.module in files) == (code not in NO_EXAMPLES), f"{code}: {rule.module}.md"
        if rule.module in files:
            text = (FOLDER / f"{rule.module}.md").read_text(encoding="utf-8")
            assert text.startswith(render(code, rule.name, (), ())), f"{rule.module}.md does not start as it should"
        source = (rules_dir / f"{rule.module}.py").read_text(encoding="utf-8")
        assert not re.search(r"^(IN)?VALID\b", source, re.M), \
            f"{rule.module}.py builds examples; write them in examples/{rule.module}.md"


def test_the_examples_format_reads_back_what_it_writes():
    failing = ("x = 1  # E: PTO001\n", "\n\nindented:\n    pass\n")
    passing = ("y = 2\n",)
    written = render("PTO001", "syntax-error", failing, passing)
    assert parse(written) == (failing, passing)
    # a sentence before a kernel says what it shows; the reader keeps the kernels only
    noted = written.replace("## Passes\n\n", "## Passes\n\nWhat this one shows.\n\n")
    assert noted != written and parse(noted) == (failing, passing)
    assert parse(render("PTO001", "syntax-error", (), passing)) == ((), passing)
    assert examples_of("no_such_rule") == ((), ())
