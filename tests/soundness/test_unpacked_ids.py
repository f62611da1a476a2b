"""`e0, e1 = EV_FREE` in a kernel: unpacking a module list of numbers binds its items, numbers that
cannot change, not the list. The check took it for a second name bound to the list (which could
then change it), so every id read from `EV_FREE` was "not a compile-time constant" and a kernel
pipelined by hand was warned about (PTO077) instead of checked."""

from __future__ import annotations

from pathlib import Path

from helpers import edited
from pto_transpile import transpile

HAND = (Path(__file__).parents[2] / "examples" / "hand_pipelined.py").read_text(encoding="utf-8")
DRAIN = [("    # drain: consume the releases", "    e0, e1 = EV_FREE\n    # drain: consume the releases"),
         ("event_id=EV_FREE[N % 2])", "event_id=e0)"),
         ("event_id=EV_FREE[(N + 1) % 2])", "event_id=e1)")]


def _codes(text: str) -> list[str]:
    return [d.code for d in transpile(text, path="k.py").diagnostics if d.code in ("PTO068", "PTO077")]


def test_ids_unpacked_from_a_module_list_are_checked():
    assert _codes(edited(HAND, DRAIN)) == []


def test_a_wrong_id_unpacked_is_found():
    # both drain waits on the first id: one release of the second is never consumed, and the second wait hangs
    text = edited(HAND, DRAIN[:2] + [("event_id=EV_FREE[(N + 1) % 2])", "event_id=e0)")])
    assert "PTO068" in _codes(text)


def test_a_list_changed_after_it_is_unpacked_is_not_a_constant():
    text = edited(HAND, DRAIN + [("    e0, e1 = EV_FREE\n", "    e0, e1 = EV_FREE\n    EV_FREE[0] = 5\n")])
    assert _codes(text) == ["PTO077"] * len(_codes(text)) and _codes(text)


def test_the_lists_unpacked_from_a_list_of_lists_may_change():
    text = edited(HAND, [("EV_FREE = [2, 3]", "EV_FREE = [2, 3]\nPAIRS = [[2], [3]]"),
                         ("    # drain: consume the releases",
                          "    p0, p1 = PAIRS\n    p0.append(7)\n    # drain: consume the releases"),
                         ("event_id=EV_FREE[N % 2])", "event_id=PAIRS[0][0])")])
    assert _codes(text) == ["PTO077"] * len(_codes(text)) and _codes(text)
