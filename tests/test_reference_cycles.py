"""A transpile leaves no reference cycle behind.

Everything a transpile builds (the syntax tree, the model, the interpreter runs of the proof)
is freed by reference counting when its result is dropped. A cycle among them would keep the
whole tree alive until the cycle collector's next full pass, whose cost grows with everything
the process holds (the driver pauses the collector during a transpile on this promise).
"""

from __future__ import annotations

import gc
from collections import Counter
from pathlib import Path

import pytest

from pto_transpile import transpile
from pto_transpile.rules import registry
from tests.helpers import ROOT, fixed_flash_attention


def _left_for_the_collector(run) -> Counter:
    """The types of the objects `run()` leaves that only the cycle collector would free."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        run()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = Counter(type(o).__qualname__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    return left


EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_transpiling_an_example_leaves_no_cycle(path: Path) -> None:
    text = fixed_flash_attention(path.name) if path.name.startswith("flash_attention") else path.read_text()
    assert _left_for_the_collector(lambda: transpile(text, preload=1)) == Counter()


@pytest.mark.campaign  # (11 s of the default suite's five minutes; the examples' transpiles run by default)
def test_refused_kernels_leave_no_cycle() -> None:
    """The failing examples of every rule: the paths that report instead of writing."""
    kernels = [text for rule in registry().values() for text in rule.invalid]
    assert len(kernels) > 50
    assert _left_for_the_collector(lambda: [transpile(text) for text in kernels]) == Counter()
