"""Kernels a hostile probe (h69) found accepted and wrong: a counter whose start is the value an
earlier loop (not one around this loop) left it at, `cur == my_n` after `for u in
pl.range(0, my_n): cur = cur + 1`. Its form named only the counter's own variable, so its start
passed for a constant, and a flip or residue of it (`cur = 1 - cur`, `(cur + 1) % 2`) was taken
for a periodic value whose tests need no judging: `if cur > 20:` set an event once `my_n`
passed 20, beyond every count the check ran (the emulator shows the imbalance at 22 tiles).
Such a start is refused now, naming the counter."""

from __future__ import annotations

import pytest

from helpers import edited, hand_pipelined_over_blocks
from pto_transpile import codes, transpile
from sim_runtime import verify

HAND = hand_pipelined_over_blocks()
LOOP = "    for t in pl.range(0, my_n + 1):\n"
LAUNDER = "    cur = 0\n    for u in pl.range(0, my_n):\n        cur = cur + 1\n" + LOOP
RELEASE = "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n"


def _extra_set(test: str) -> str:
    return ("        with pl.section_vector():\n"
            f"            if {test}:\n"
            "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[0])\n")


def _findings(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="hand.py").diagnostics if d.severity != "note"]


def _verdict(text: str, tiles: int) -> str:
    rows = 32 * tiles
    return verify(text, text, "hand_pipelined_kernel", shapes={"a": (rows, 32), "out": (rows, 32)}).rows[0].verdict


@pytest.mark.parametrize("flip, test, tiles, before", [
    ("cur = 1 - cur", "cur > 20", 22, False),
    ("cur ^= 1", "cur == 17", 17, False),
    # accepted before the flips were followed, too: the first beat tests the start itself
    ("cur = (cur + 1) % 2", "cur > 20", 22, True),
])
def test_a_counter_started_where_an_earlier_loop_left_it_is_refused(flip, test, tiles, before):
    update = _extra_set(test) + f"        {flip}\n" if before else f"        {flip}\n" + _extra_set(test)
    text = edited(HAND, [(LOOP, LAUNDER), (RELEASE, RELEASE + update)])
    ((code, message),) = _findings(text)
    assert code == codes.HAND_SYNC_UNDECIDED and "counter `cur` starts at the value an earlier loop left it at" \
        in message, message
    assert (_verdict(text, 5), _verdict(text, tiles)) == ("ok", "imbalance")


def test_the_same_start_in_a_struct_field_is_refused():
    text = edited(HAND, [
        (LOOP, "    st = pl.struct(cur=0)\n    for u in pl.range(0, my_n):\n        st.cur = st.cur + 1\n" + LOOP),
        (RELEASE, RELEASE + "        st.cur = 1 - st.cur\n" + _extra_set("st.cur > 20")),
    ])
    ((code, message),) = _findings(text)
    assert code == codes.HAND_SYNC_UNDECIDED and "counter `st.cur` starts at the value an earlier loop" in message
    assert _verdict(text, 22) == "imbalance"


def test_a_residue_by_a_kernel_local_divisor_shadowing_a_module_constant_is_refused_naming_it():
    # the check read `K` as the module's 2; the kernel takes residues modulo its own 4
    text = edited(HAND, [("\n\n@pl.jit", "\n\nK = 2\n\n\n@pl.jit"), (LOOP, "    K = 4\n    cur = 0\n" + LOOP),
                         (RELEASE, RELEASE + "        cur = (cur + 1) % K\n" + _extra_set("cur == 3"))])
    ((code, message),) = _findings(text)
    assert code == codes.HAND_SYNC_UNDECIDED and "counter `cur` holds 2, which is no residue modulo 2" in message
    assert _verdict(text, 4) == "imbalance"


def test_each_hint_applied_gives_a_proven_kernel():
    # "start `cur` at a constant before this loop": the flip then takes 0 and 1 only
    text = edited(HAND, [(LOOP, LAUNDER), (RELEASE, RELEASE + "        cur = 1 - cur\n" + _extra_set("cur > 20"))])
    assert [code for code, _ in _findings(text)] == [codes.HAND_SYNC_UNDECIDED]
    fixed = edited(text, [(LOOP, "    cur = 0\n" + LOOP)])
    assert _findings(fixed) == [] and _verdict(fixed, 22) == "ok"
    # "take `cur` modulo a literal or a module constant the kernel does not bind again"
    text = edited(HAND, [("\n\n@pl.jit", "\n\nK = 2\n\n\n@pl.jit"), (LOOP, "    K = 4\n    cur = 0\n" + LOOP),
                         (RELEASE, RELEASE + "        cur = (cur + 1) % K\n" + _extra_set("cur == 9"))])
    assert [code for code, _ in _findings(text)] == [codes.HAND_SYNC_UNDECIDED]
    fixed = text.replace("cur = (cur + 1) % K", "cur = (cur + 1) % 4")
    assert _findings(fixed) == [] and _verdict(fixed, 9) == "ok"
