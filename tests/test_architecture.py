"""How the driver and the rules meet: contexts, per-loop state, the guarded rule runner."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pto_transpile.driver import transpile
from pto_transpile.rules import registry
from pto_transpile.rules.context import LoopContext

PACKAGE = Path(__file__).resolve().parent.parent  #: the repository root
DEMO = (PACKAGE / "examples" / "seed_demo.py").read_text(encoding="utf-8")


def _capture(monkeypatch, code: str) -> list:
    """Replace rule `code`'s check by one that records the contexts it is given."""
    seen: list = []

    def check(ctx):
        seen.append(ctx)
        return iter(())

    monkeypatch.setattr(registry()[code], "check", check)
    return seen


def test_loop_rules_read_the_loop_state_transpile_returns(monkeypatch) -> None:
    loop_phase = _capture(monkeypatch, "PTO043")  # too-few-tiles
    graph_phase = _capture(monkeypatch, "PTO044")  # dependency-cycle
    result = transpile(DEMO, path="seed_demo.py")
    assert result.ok and result.loops
    assert [type(c) for c in loop_phase] == [LoopContext] * len(result.loops)
    for ctx, loop in zip(loop_phase, result.loops, strict=True):
        assert ctx.result is loop and ctx.accesses is loop.accesses and ctx.schedule is loop.schedule
        assert ctx.loop_results == [r for r in result.loops if r.kernel == ctx.kernel.name]
    assert [c.graph for c in graph_phase] == [loop.graph for loop in result.loops]


@pytest.mark.parametrize("code,phase", [("PTO003", "file"), ("PTO014", "kernel"), ("PTO043", "loop"),
                                        ("PTO044", "graph")])
def test_a_crashing_rule_is_an_internal_error_naming_it_in_every_phase(monkeypatch, code: str, phase: str) -> None:
    rule = registry()[code]
    assert rule.phase == phase

    def crash(ctx):
        raise ValueError("boom")

    monkeypatch.setattr(rule, "check", crash)
    result = transpile(DEMO, path="seed_demo.py")
    crashes = [d for d in result.diagnostics if d.code == "PTO099"]
    assert len(crashes) == 1 and f"rule {code} ({rule.name}) crashed: ValueError: boom" in crashes[0].message
    assert result.code is None


#: What code outside rules/ may take from the rules package: the registry, the Rule record,
#: the contexts, the Reporter that runs the rules and --explain. Anything else is one rule's internals.
RULES_INTERFACE = {"pto_transpile.rules": {"registry", "rules_for", "PHASES", "Rule"},
                   "pto_transpile.rules.rule": None, "pto_transpile.rules.context": None,
                   "pto_transpile.rules.reporter": None, "pto_transpile.rules.suppression": None,
                   "pto_transpile.rules.explain": None}


def _rule_imports(text: str) -> list[str]:
    """`line: module.name` for each import of `text` from the rules package beyond its interface."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pto_transpile.rules"):
            allowed = RULES_INTERFACE.get(node.module, set())
            out += [f"{node.lineno}: {node.module}.{a.name}" for a in node.names
                    if allowed is not None and a.name not in allowed]
        elif isinstance(node, ast.Import):
            out += [f"{node.lineno}: {a.name}" for a in node.names
                    if a.name.startswith("pto_transpile.rules") and a.name not in RULES_INTERFACE]
    return out


def test_nothing_outside_the_rules_reaches_into_a_rule_module() -> None:
    package = PACKAGE / "pto_transpile"
    found = {str(p.relative_to(PACKAGE)): _rule_imports(p.read_text(encoding="utf-8"))
             for p in sorted(package.rglob("*.py")) if package / "rules" not in p.parents}
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_the_rule_import_search_sees_a_reach() -> None:
    text = ("from pto_transpile.rules import registry, _examples\n"
            "from pto_transpile.rules.context import LoopContext\n"
            "from pto_transpile.rules.already_pipelined import _GENERATED\n"
            "import pto_transpile.rules.no_kernel\n")
    assert _rule_imports(text) == ["1: pto_transpile.rules._examples",
                                   "3: pto_transpile.rules.already_pipelined._GENERATED",
                                   "4: pto_transpile.rules.no_kernel"]


def test_no_cache_is_hidden_in_an_objects_dict() -> None:
    # a memo kept with an object is one of its declared fields (`FileModel.caches`, a `FileCaches`)
    package = PACKAGE / "pto_transpile"
    found = [f"{p.relative_to(PACKAGE)}:{i}" for p in sorted(package.rglob("*.py"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "__dict__.setdefault" in line]
    assert found == []
