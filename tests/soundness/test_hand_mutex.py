"""Mutexes written by hand (`pl.system.mutex_lock`/`mutex_unlock` in a kernel with
`auto_mutex=False`) order the pipes of one core as the hardware's buffer-id tokens do: a lock on
pipe P holds P's later work until the id's last unlock is done. The check ignored them, so a
kernel that locks every op's slots as auto_mutex would was refused (PTO068, "nothing orders the
two (no set/wait pair, mutex or barrier ...)"), while the emulator, which models them, ran it
without a race. Both follow them now, and agree where a lock is missing or on the wrong pipe."""

from __future__ import annotations

import pytest

from helpers import ROOT, edited, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

#: examples/hand_pipelined.py with its mutexes written by hand (tests/soundness/kernels/hand_mutex.patch)
MUTEXES = kernel_text(ROOT / "tests" / "soundness" / "kernels" / "hand_mutex.py")


def _codes(text: str) -> list[str]:
    return [d.code for d in transpile(text, path="k.py").diagnostics if d.code in ("PTO068", "PTO077")]


def _emulated(text: str) -> str:
    (row,) = [r for r in verify(text, {"as written": text}, "hand_pipelined_kernel").rows if r.version != "serial"] \
        or [verify(text, {"as written": text}, "hand_pipelined_kernel").rows[0]]
    return row.verdict


def test_mutexes_written_by_hand_order_the_pipes_of_a_core():
    text = MUTEXES
    assert _codes(text) == []
    assert _emulated(text) == "ok"


@pytest.mark.parametrize("edit", [
    # the store's lock on the vector pipe: nothing holds the store back until relu is done
    ("    locked(pl.PipeType.MTE3, [11 + s])\n", "    locked(pl.PipeType.V, [11 + s])\n"),
    # relu keeps the id of its result tile: the store's lock waits for an older unlock
    ("    unlocked(pl.PipeType.V, [11 + s, s])\n", "    unlocked(pl.PipeType.V, [s])\n"),
    # no lock at all
    ("        pl.system.mutex_lock(pipe=pipe, mutex_id=i)\n", "        pass\n"),
])
def test_a_missing_or_misplaced_lock_is_a_race_to_both(edit):
    text = edited(MUTEXES, [edit])
    assert _codes(text) == ["PTO068"] * len(_codes(text)) and _codes(text)
    assert _emulated(text) == "race"


def test_a_mutex_id_past_the_hardware_is_refused():
    text = edited(MUTEXES, [("    locked(pl.PipeType.MTE3, [11 + s])\n",
                                             "    locked(pl.PipeType.MTE3, [31 + s])\n")])
    messages = [d.message for d in transpile(text, path="k.py").diagnostics if d.code == "PTO068"]
    assert messages and "mutex id 32" in messages[0] and "outside the hardware's 0..31" in messages[0], messages


def test_a_mutex_id_known_only_at_run_time_is_not_followed():
    text = edited(MUTEXES, [
        ("    locked(pl.PipeType.MTE3, [11 + s])\n",
         "    locked(pl.PipeType.MTE3, [11 + s + pl.get_block_idx() // pl.get_subblock_num()])\n")])
    messages = [d.message for d in transpile(text, path="k.py").diagnostics if d.code == "PTO077"]
    assert messages and "the mutex id" in messages[0] and "known only at run time" in messages[0], messages
