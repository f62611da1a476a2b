"""Every fact about what an op does is written once, in `pto_api.effects`: neither the checker
nor the emulator keeps its own copy (the copies had drifted apart)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DRIVERS = [p for d in ("pto_transpile", "sim_runtime") for p in sorted((ROOT / d).rglob("*.py"))]

#: the duplicated literals the two interpreters used to carry, and what replaced them
OLD_LITERALS = {
    r"\bMAX_PENDING\b|more than 15\b": "the counter depth (effects.COUNTER_DEPTH)",
    r"\"AIV_ONLY\":\s*\(|\"AIC_ONLY\":\s*\(": "the cores a barrier joins (effects.BARRIER_CORE_KINDS)",
    r"\"SingleModeVec[01]\"|endswith\(\"0\"\)": "where an Acc->Vec move lands (effects.ACC_TO_VEC_TARGETS)",
    r"ACC_TO_VEC_DEFAULT_MODE": "the assumed Acc->Vec default (effects.ACC_TO_VEC_ASSUMED_DEFAULT)",
    r"cursor\s*\+=\s*1|\bcur\s*\+=\s*1|depth\s*-\s*1\)\s*%": "the tile-group cursor rule (effects.pick_slot)",
    r"addrs\s*\+\s*i\s*\*": "slot addresses of a tile group (effects.slot_addresses)",
}


@pytest.mark.parametrize("pattern", OLD_LITERALS, ids=list(OLD_LITERALS.values()))
def test_no_driver_restates_an_effect(pattern):
    hits = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in DRIVERS
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if re.search(pattern, line)]
    assert not hits, f"{OLD_LITERALS[pattern]} is restated outside pto_api.effects:\n" + "\n".join(hits)


@pytest.mark.parametrize("package", ["pto_transpile/soundness", "sim_runtime"])
def test_both_interpreters_call_the_shared_effects(package):
    text = "".join(p.read_text(encoding="utf-8") for p in (ROOT / package).rglob("*.py"))
    for name in ("barrier_kinds", "after_sets", "pick_slot", "slot_addresses", "acc_to_vec_targets", "COUNTER_DEPTH"):
        assert name in text, f"{package} does not use pto_api.effects.{name}"
