"""`is_transpose=` is read where the op takes it (`pl.load`): a store does not take it (the op
table names no such keyword; the emulator ignores it). The check swapped a store's window by it,
so the columns the store does write were outside its footprint, and a cube stage reading them
back was accepted unordered (probe h124: the pipelined kernel raced on the emulator). Refused now
as the store without the flag is."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile

TEXT = (Path(__file__).parent / "kernels" / "h124_store_transpose.py").read_text(encoding="utf-8")
FLAGGED = "    pl.store(out, proj, [i * OUT_STRIDE, sub_id * HALF], is_transpose=True)\n"


@pytest.mark.parametrize("store", [FLAGGED, FLAGGED.replace(", is_transpose=True", "")], ids=["flag", "none"])
def test_the_store_is_refused_with_or_without_the_flag(store):
    (message,) = error_messages(transpile(edited(TEXT, [(FLAGGED, store)]), path="k.py", preload=1))
    assert "`pl.store` on MTE3 of AIV0 writes `out[0:16, 0:32]`" in message, message
    assert "reads `out[0:16, 16:32]`, and nothing orders the two" in message, message


ACC = kernel_text(Path(__file__).parent / "kernels" / "h124_acc_move_offset.py")
MOVE = "    pl.move(proj, acc, [BLOCK, 0], acc_to_vec_mode=pl.AccToVecMode.SingleModeVec0)\n"


@pytest.mark.parametrize("move", [MOVE, MOVE.replace("[BLOCK, 0], ", "")], ids=["offset", "none"])
def test_an_acc_to_vec_move_with_an_offset_writes_from_the_origin_as_without(move):
    """An Acc->Vec move takes no offset (the emulator's `_acc_to_vec`): the check took one into a
    bigger destination for an insert lower down, and the rows it writes over the marker tile of
    the other slot went unseen (probe h124: the pipelined kernel raced)."""
    (message,) = error_messages(transpile(edited(ACC, [(MOVE, move)]), path="k.py", preload=1))
    assert "reads `marker` while stage `project` (task 1), `pl.move` on FIX of AIC writes `proj_vec_db[1]`" in message
