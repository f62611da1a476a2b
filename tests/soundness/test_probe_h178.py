"""Probe h178: the truth of a `pl` constant. `pl.TilePad.null` is an IntEnum member of value 0,
false to Python, while the model took `bool()` of its symbol for True: a third credit primed under
`if not bool(pl.TilePad.null):` went unseen (accepted; the kernel as written races), and
`@pl.jit(auto_mutex=pl.TilePad.null)` was read as auto_mutex on (accepted; the JIT orders nothing,
and two pipes of the cube race). A builtin given a `pl` constant computes an unknown value now, and
an `auto_mutex=` of one is off."""

from __future__ import annotations

from helpers import edited, hand_pipelined_over_blocks
from pto_transpile import transpile


def _codes(text: str) -> list[str]:
    return [d.code for d in transpile(text, path="k.py").diagnostics if d.code in ("PTO068", "PTO077")]


def test_a_credit_under_the_truth_of_a_pl_constant_is_not_taken_as_decided():
    text = edited(hand_pipelined_over_blocks(), [(
        "    for t in pl.range(0, my_n + 1):\n",
        "    with pl.section_vector():\n        if not bool(pl.TilePad.null):\n"
        "            pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[0])\n"
        "    for t in pl.range(0, my_n + 1):\n")])
    assert _codes(text), "a third credit on two slots, under a test of a pl constant, was taken as never primed"


def test_auto_mutex_given_a_pl_constant_is_off():
    text = edited(hand_pipelined_over_blocks(), [("@pl.jit(auto_mutex=True)", "@pl.jit(auto_mutex=pl.TilePad.null)")])
    assert "PTO068" in _codes(text)
    assert not _codes(hand_pipelined_over_blocks())
