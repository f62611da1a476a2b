"""How the driver and the rules meet: contexts, per-loop state, the guarded rule runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_transpile.api import transpile
from pto_transpile.rules import registry
from pto_transpile.rules.context import LoopContext

DEMO = (Path(__file__).resolve().parent.parent / "examples" / "seed_demo.py").read_text(encoding="utf-8")


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
    for ctx, loop in zip(loop_phase, result.loops):
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
