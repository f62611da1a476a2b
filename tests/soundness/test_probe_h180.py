"""Probe h180: the evaluator of module constants and `@pl.jit` options computed `pl` constants
otherwise than Python: `pl.TilePad.null == 0` (an IntEnum member of value 0) False, `not
pl.TilePad.null` False, `pl.ND == pl.TileLayout.ND` (one member, two names) False, `pl.DYNAMIC ==
-1` False. A module constant so computed hid a racing store (accepted; the emulator races), and
`auto_mutex=pl.TilePad.null != 0` was read as on. A comparison, truth or builtin of a `pl` constant
is not folded now, but `==` of two members Python tells apart by identity, by the member whichever
name spells it."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, hand_pipelined_over_blocks, kernel_text
from pto_transpile import transpile

BRANCH = kernel_text(Path(__file__).parent / "kernels" / "branch_on_param.py")


def _racing_when(test: str) -> str:
    return edited(BRANCH, [("\nTILE = ", f"\nRACE = {test}\nTILE = "), ("    if d == 7:\n", "    if RACE:\n")])


@pytest.mark.parametrize("test", ["pl.TilePad.null == 0", "not pl.TilePad.null", "pl.ND == pl.TileLayout.ND",
                                  "pl.DYNAMIC == -1", "1 if not pl.TilePad.null else 0",
                                  "pl.TilePad.zero in (1,)", "bool(pl.TilePad.null) is False"])
def test_a_module_constant_computed_from_a_pl_constant_is_not_taken_for_false(test):
    errors = error_messages(transpile(_racing_when(test), path="k.py", preload=1))
    assert errors and "writes `a[" in errors[0], errors


@pytest.mark.parametrize("test", ["pl.DT_FP32 == pl.DT_FP16", "pl.NZ == pl.TileLayout.ND", "pl.ND != pl.TileLayout.ND"])
def test_members_python_tells_apart_by_identity_are_compared(test):
    assert transpile(_racing_when(test), path="k.py", preload=1).ok


def test_auto_mutex_computed_from_a_pl_constant_is_off():
    text = edited(hand_pipelined_over_blocks(),
                  [("@pl.jit(auto_mutex=True)", "@pl.jit(auto_mutex=pl.TilePad.null != 0)")])
    assert any(d.code == "PTO068" for d in transpile(text, path="k.py").diagnostics)
