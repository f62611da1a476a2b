"""How many sets of one event id a hand-pipelined kernel leaves pending is judged over every
schedule its syncs allow, not over the one its run takes (probe h256). The cube raised event 4
K times a beat and the vector cores took them at the end of their beat, after releasing the beat's
tile: released, the cube made two more tiles before the vector took the first K, three beats of
sets pending (18 at K = 6, past the counter's 15), where the run, and the check, saw two. Taken
before the release, two beats are the most (14 at K = 7 is sound, 16 at K = 8 is refused)."""

from __future__ import annotations

import pytest

from helpers import edited, hand_pipelined_over_blocks
from pto_transpile import transpile
from sim_runtime import verify

NAME = "hand_pipelined_kernel"
FULL = "                pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FULL[t % 2])\n"
CONSUME = "                consume(before.row, sub_id, out, x_db, r_db)\n"
RELEASE = "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n"


def _kernel(sets: int, after_release: bool) -> str:
    raise_k = f"                for _s in range({sets}):\n" \
              "                    pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=4)\n"
    take_k = f"                for _s in range({sets}):\n" \
             "                    pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=4)\n"
    late = "                w = r_db.next()\n                for _k in range(200):\n                    pl.relu(w, w)\n"
    vector = CONSUME + RELEASE + late + take_k if after_release else CONSUME + take_k + RELEASE
    return edited(hand_pipelined_over_blocks(), [(FULL, FULL + raise_k), (CONSUME + RELEASE, vector)])


def _errors(text: str) -> list[str]:
    return [d.message for d in transpile(text, path="hand.py").diagnostics if d.is_error]


def _verdict(text: str, tiles: int) -> str:
    return verify(text, text, NAME, shapes={"a": (32 * tiles, 32), "out": (32 * tiles, 32)}).rows[-1].verdict


@pytest.mark.parametrize("sets", [6, 7])
def test_sets_taken_after_the_release_are_three_beats_of_pending_sets(sets):
    text = _kernel(sets, after_release=True)
    (message,) = _errors(text)
    assert "more than 15 sets of event id 4 from AIC can be pending at once" in message, message
    assert _verdict(text, 7) == "overflow"


@pytest.mark.parametrize("sets, sound", [(7, True), (8, False)])
def test_sets_taken_before_the_release_are_two_beats(sets, sound):
    text = _kernel(sets, after_release=False)
    assert (_errors(text) == []) == sound
    assert _verdict(text, 4) == ("ok" if sound else "overflow")


@pytest.mark.parametrize("barrier, fixed", [
    ("    with pl.section_vector():\n        pl.system.sync_all(core_type=pl.SyncCoreType.AIC_ONLY)\n",
     "    with pl.section_cube():\n        pl.system.sync_all(core_type=pl.SyncCoreType.AIC_ONLY)\n"),
    ("    pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)\n",
     "    with pl.section_vector():\n        pl.system.sync_all(core_type=pl.SyncCoreType.AIV_ONLY)\n"),
], ids=["aic-only-in-a-vector-section", "aiv-only-outside-the-sections"])
def test_a_barrier_a_core_of_another_type_reaches_is_unsound(barrier, fixed):
    """Probe h256: such a barrier was "could not be checked" (PTO077, a warning, the file written),
    with a help about loops and `sync_mode`; it is an error on every run (the emulator refuses the
    call), so PTO068, with the help to put it where only its cores run it, which is proven."""
    drain = "    # drain: consume the releases of the last two tiles so every set meets its wait\n"
    text = edited(hand_pipelined_over_blocks(), [(drain, barrier + drain)])
    (found,) = [d for d in transpile(text, path="hand.py").diagnostics if d.is_error]
    assert found.code == "PTO068" and "which it is not part of" in found.message, found.message
    assert found.hint.startswith("Call a barrier of one core type where only cores of that type run it"), found.hint
    assert _errors(edited(hand_pipelined_over_blocks(), [(drain, fixed + drain)])) == []


def test_a_section_inside_a_helper_is_an_error_of_every_run():
    """Probe h257: `with pl.section_vector():` around a barrier, in a helper the kernel calls, was
    followed as if lowered, and the kernel accepted; the JIT lowers the kernel's own sections alone
    (the emulator: "only supported directly in the @pl.jit kernel body"). Refused, with the help to
    write the section in the kernel around the call, which is proven."""
    helper = ("def sync_vec():\n    with pl.section_vector():\n        pl.system.sync_all("
              "core_type=pl.SyncCoreType.AIV_ONLY)\n\n\n@pl.jit(auto_mutex=True)\n")
    drain = "    # drain: consume the releases of the last two tiles so every set meets its wait\n"
    text = edited(hand_pipelined_over_blocks(), [("@pl.jit(auto_mutex=True)\n", helper),
                                                 (drain, "    sync_vec()\n" + drain)])
    (found,) = [d for d in transpile(text, path="hand.py").diagnostics if d.is_error]
    assert found.code == "PTO068" and "is in `sync_vec`, not directly in the kernel's body" in found.message
    assert verify(text, text, NAME, shapes={"a": (64, 32), "out": (64, 32)}).rows[-1].verdict == "error"
    fixed = text.replace("    with pl.section_vector():\n        pl.system.sync_all(", "    pl.system.sync_all(") \
        .replace("    sync_vec()\n", "    with pl.section_vector():\n        sync_vec()\n")
    assert _errors(fixed) == [] and _verdict(fixed, 5) == "ok"
