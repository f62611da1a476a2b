"""Ops whose bytes the check read otherwise than the emulator runs them, each a race a probe found
accepted (probes h124, h125), each refused now as its plain form is:
- `is_transpose=` is read where the op takes it (`pl.load`): a store does not take it (the op
  table names no such keyword; the emulator ignores it). The check swapped a store's window by it,
  so the columns the store does write were outside its footprint, and a cube stage reading them
  back was accepted unordered;
- an Acc->Vec move takes no offset: the check took one into a bigger destination for an insert;
- a `post_update` cursor given by position is shared between two parameters given one tile, as
  one given by keyword.
A store that may write fewer rows than the window it is placed at (a valid shape set under a data
test, a slot picked by data among slots of different shapes) covered that window (probe h128).
Beside them, one the other way (probe h126): a move of a view into a bigger tile inserts the view's
rows; taken for an extract covering the whole tile, it was refused as a race of the two AIVs."""

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


VF = kernel_text(Path(__file__).parent / "kernels" / "h125_vf_positional_post_update.py")
POSITIONAL = "        z = vf.load_align(prev, LANES, pl.LoadDist.NORM, None, True)\n"


@pytest.mark.parametrize("load", [POSITIONAL, POSITIONAL.replace("None, True)", "None, post_update=True)")],
                         ids=["position", "keyword"])
def test_a_post_update_cursor_given_by_position_is_shared_as_by_keyword(load):
    """Two parameters given one tile share one cursor (probe h125: given by position, the check
    kept one per parameter, and the second walk's bytes past the tile went unseen)."""
    (message,) = error_messages(transpile(edited(VF, [(POSITIONAL, load)]), path="k.py", preload=1))
    assert "`scale_vf()` on V of AIV0 reads `res_db[1] (bytes 2048..4096 from its start, past its 2048 bytes)`" \
        in message, message


ACC_STRING = kernel_text(Path(__file__).parent / "kernels" / "h126_acc_string_memory.py")
STRING = 'target_memory="Acc"),'


@pytest.mark.parametrize("memory", [STRING, 'target_memory=pl.MemorySpace["Acc"]),'], ids=["string", "subscript"])
def test_a_memory_space_not_written_as_the_pl_constant_is_refused(memory):
    """The emulator reads the space such a spelling names; the check took it for Vec, and the
    matmul's writes into the Acc slot a later stage reads went unseen (probe h126)."""
    (message,) = error_messages(transpile(edited(ACC_STRING, [(STRING, memory)]), path="k.py", preload=2))
    assert "is not one the check can read, and it places the tile's bytes: write the `pl` constant itself " \
           "(`pl.MemorySpace.Acc`)" in message, message


def test_written_as_the_constant_the_acc_slot_is_followed():
    (message,) = error_messages(transpile(edited(ACC_STRING, [(STRING, "target_memory=pl.MemorySpace.Acc),")]),
                                          path="k.py", preload=2))
    assert "`pl.move` on FIX of AIC reads `acc_r_db[0]`: in the serial kernel it sees stage `project` (task 0)" \
           in message, message


UNREAD = kernel_text(Path(__file__).parent / "kernels" / "h126_valid_unread.py")
MAPPED = "valid_shape=list(map(int, (QUART, BLOCK)))"


@pytest.mark.parametrize("valid", [MAPPED, "valid_shape=[QUART, BLOCK]"], ids=["unread", "written"])
def test_a_valid_shape_the_check_cannot_read_is_no_cover(valid):
    """Taken for the declared shape, exact, a partial write covered the whole tile and cut an
    earlier load of its bytes (probe h126); read as a shape of run-time values it does not."""
    (message,) = error_messages(transpile(edited(UNREAD, [(MAPPED, valid)]), path="k.py", preload=1))
    assert "`pl.store` on MTE3 of AIV0 reads `res_full_g[0]`: in the serial kernel it sees stage `copy` (task 0)" \
           in message, message


VIEW_MOVE = kernel_text(Path(__file__).parent / "kernels" / "h126_view_move_insert.py")


@pytest.mark.parametrize("preload", [1, 2])
def test_a_view_moved_into_a_bigger_tile_inserts_each_cores_rows(preload):
    """`pl.move(p_mat, relu_nz[0:32, 0:64], [sub_id * 32, 0])` is an insert of the view's rows at
    each AIV's offset, as the emulator runs it: the check took it for an extract covering the
    whole slot, so the two AIVs' writes were a race it refused, and a cover hid earlier writes of
    the rows it does not reach (probe h126). The kernel is the seed demo's, proven and run."""
    from sim_runtime import verify

    result = transpile(VIEW_MOVE, path="k.py", preload=preload)
    assert error_messages(result) == [] and result.code is not None
    rows = verify(VIEW_MOVE, result.code, "pipeline_demo_kernel", path="k.py").rows
    assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message


TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text(encoding="utf-8")
RANK3 = edited(TILED, [("    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],",
                        "    out: pl.Tensor[[pl.DYNAMIC, BLOCK, BLOCK], pl.DT_FP32],"),
                       ("    pl.store(out, res, [i * BLOCK + sub_id * HALF, 0])",
                        "    pl.store(out, res, [i, sub_id * HALF, 0]{order})")])


@pytest.mark.parametrize("order", ["", ", order=[1, 2]"], ids=["default", "spelled"])
def test_the_default_axes_of_a_rank_3_store_spelled_out_are_no_transpose(order):
    """`order=[1, 2]` of a rank-3 tensor names its last two axes, the default: it was refused as
    a transpose, with a help naming `is_transpose=`, which a store does not take (probe h126)."""
    from sim_runtime import verify

    text = RANK3.replace("{order}", order)
    result = transpile(text, path="k.py", preload=2)
    assert error_messages(result) == [] and result.code is not None
    rows = verify(text, result.code, "tiled_scale_kernel", path="k.py", block_dim=2,
                  shapes={"a": (160, 32), "out": (5, 32, 32)}, scalars={"scale": 0.5, "ApplyRelu": 1}).rows
    assert [r.verdict for r in rows] == ["ok", "ok"], rows[-1].message


def test_an_order_the_check_does_not_read_names_the_axes_a_store_takes():
    (message,) = error_messages(transpile(RANK3.replace("{order}", ", order=reversed([1, 2])"), path="k.py",
                                          preload=2))
    assert "`pl.store` is given a transpose the check does not read: write `order=` as a list of two of the " \
           "tensor's axes (`order=[1, 2]` names its last two, the default)" in message, message


PARTIAL = kernel_text(Path(__file__).parent / "kernels" / "h128_gm_partial_cover.py")
PICK = kernel_text(Path(__file__).parent / "kernels" / "h128_gm_pick_cover.py")
UNDER_TEST = "    if out_vec[0, 0] > 0.0:\n        pl.set_validshape(head, [TILE_HALF // 2, TILE])\n"
READ_BACK = ("`pl.load` on MTE2 of AIV0 reads `scratch[0:32, 0:64]`: in the serial kernel it sees stage `stage2` "
             "(task 0), `pl.store` on MTE3 of AIV0; then stage `stage4` (task 0), `pl.store` on MTE3 of AIV0, in the "
             "pipelined kernel stage `stage2` (task 1)")


@pytest.mark.parametrize("text", [PARTIAL, edited(PARTIAL, [(UNDER_TEST, "    pl.set_validshape(head, [TILE_HALF // 2, "
                                                                         "TILE])\n")]), PICK],
                         ids=["under a data test", "always", "a slot picked by data"])
def test_a_store_that_may_write_fewer_rows_covers_none(text):
    """A valid shape set under a test followed both ways is either shape, and a slot picked by data
    either slot's: the store writes the larger window at the most, a superset, never a cover. Taken
    as covering it, the store hid an earlier stage's write of the rows it may not reach, which the
    read-back sees from the next task when pipelined (probe h128: outputs differed by 335)."""
    (message,) = error_messages(transpile(text, path="k.py", preload=1))
    assert READ_BACK in message, message
