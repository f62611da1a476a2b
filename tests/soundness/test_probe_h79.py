"""Probe h79: kernels the check accepted whose pipelined form the emulator shows wrong.

- An operand in a tile's or a GM tensor's place that the run cannot name (a pick of one of
  several tensors by a parameter, from a dict, by a float test; a tensor made from a pointer; a
  parameter annotated through an alias) was no event at all: no race could show it.
- The author's own `set_cross_core` in a stage, or in an outer loop around the pipeline loop
  whose inner loop may run no task, raised events no wait of the generated kernel held back:
  the sets pending grew with the trip count past the hardware counter, at counts the runs
  never reach.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
PICKED = (KERNELS / "workspace_pick.py").read_text(encoding="utf-8")
PICK = "{0: ws, 1: ws2}[i % 2]"
HAND = (KERNELS / "hand_event_in_stages.py").read_text(encoding="utf-8")
UNNAMED = "the check cannot tell which tile or tensor `"


def _picked(pick: str) -> str:
    return PICKED.replace(PICK, pick)


@pytest.mark.parametrize("pick", ["{0: ws, 1: ws2}[d % 2]", "(ws, ws2)[d % 2]", "ws if alpha > 0.5 else ws2",
                                  "[t for t in (ws, ws2)][0]", "(ws, ws2)[i % 2:][0]"],
                         ids=["dict", "by-parameter", "by-float", "comprehension", "slice"])
def test_a_tensor_the_run_cannot_name_is_refused(pick):
    [error] = error_messages(transpile(_picked(pick), path="k.py", preload=1))
    assert f"{UNNAMED}{pick}` is, so what `pl.store` reads or writes there is not known" in error, error


@pytest.mark.parametrize("pick", ["(ws, ws2)[i % 2]", PICK], ids=["tuple", "dict"])
def test_the_pick_the_help_names_is_followed(pick):
    """From a tuple (or a dict of 0 and 1) by the loop variable's residue: the race with the cube
    stage's load is named, and with the cube loading another tensor the kernel is proven. The
    dict's pick was UNKNOWN: a GM ping-pong written so raced unseen."""
    tuple_pick = _picked(pick)
    [error] = error_messages(transpile(tuple_pick, path="k.py", preload=1))
    assert "writes `ws[0:16, 0:32]` while stage `project` (task 1), `pl.load` on MTE2 of AIC reads `ws" in error, error
    apart = edited(tuple_pick, [("    pl.load(cur_w, ws, [0, 0])\n", "    pl.load(cur_w, a, [0, 0])\n")])
    assert error_messages(transpile(apart, path="k.py", preload=1)) == []


@pytest.mark.parametrize("annotation", ["WS", '"pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32]"', "pl.Ptr"])
def test_a_gm_parameter_not_annotated_in_place_is_refused(annotation):
    """Read as a number, its accesses were no events (`WS = pl.Tensor[...]`, a string, a pointer);
    handed to a stage, the transform cannot tell how it travels, and says so first."""
    alias = "HALF = BLOCK // 2\nWS = pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32]\n"
    text = edited(_picked("ws2"), [("    ws2: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n", f"    ws2: {annotation},\n"),
                                   ("HALF = BLOCK // 2\n", alias)])
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert "`ws2` is a kernel parameter the check reads as a number" in error \
        or f"parameter `ws2`, which is annotated `{annotation}`, which the tool does not read" in error, error


EVENT = "    pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=5)\n"
CREDITS = [  # the help: the cube waits for a release of the vector cores, one primed before the loop
    ("def produce(i, a, mid, b_slot, a_l1, left_db, right_db, acc_db):\n",
     "def produce(i, a, mid, b_slot, a_l1, left_db, right_db, acc_db):\n"
     "    pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=6)\n"),
    ("    pl.store(out, r, [i * TILE + sub_id * HALF, 0])\n",
     "    pl.store(out, r, [i * TILE + sub_id * HALF, 0])\n"
     "    pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=6)\n"),
    ("    for i in pl.range(0, n):\n",
     "    with pl.section_vector():\n        pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=6)\n"
     "    for i in pl.range(0, n):\n"),
]
DRAIN = "    with pl.section_cube():\n        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=6)\n"


@pytest.mark.parametrize("preload", [0, 1])
def test_an_event_of_the_author_nothing_holds_back_is_refused(preload):
    [error] = error_messages(transpile(HAND, path="k.py", preload=preload))
    assert "in the loop over `i`, AIC raises event id 5 for AIV0 but never waits for anything AIV0 raises" in error, \
        error


def test_the_help_applied_is_proven():
    text = edited(HAND, CREDITS) + DRAIN
    assert error_messages(transpile(text, path="k.py", preload=1)) == []


@pytest.mark.emulator
@pytest.mark.campaign  # 2 s of emulator, the suite's time
def test_the_emulator_overflows_without_the_credits_and_runs_with_them():
    shapes = {"a": (768, 32), "mid": (768, 32), "out": (768, 32)}
    for text, verdict in ((HAND, "overflow"), (edited(HAND, CREDITS) + DRAIN, "ok")):
        code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
        rows = verify(text, code, "kern", path="k.py", shapes=shapes).rows
        assert rows[0].verdict == "ok" and rows[1].verdict.startswith(verdict), [(r.verdict, r.message) for r in rows]


ROWS = (KERNELS / "rows_two_stages.py").read_text(encoding="utf-8")
INNER = """    for i in pl.range(0, n_blocks):
        with pl.section_cube():
            project(i, a, w_slot, a_l1_db, left_db, right_db, acc_db, proj_vec_db)
        with pl.section_vector():
            finish(i, sub_id, out, proj_vec_db, res_db)
"""


@pytest.mark.campaign  # 3 s, the suite's time
def test_an_outer_event_is_held_back_by_nothing_where_the_inner_loop_runs_no_task():
    """With a task, the cube waits for the vector cores' releases of `proj_vec_db`; with none
    (fewer than 32 rows), nothing: the outer loop's own event 5 piles up with its count."""
    text = edited(ROWS, [
        ("    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n", "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"
                                                        "    n_rep: pl.DT_INT32,\n"),
        (INNER, "    for h in pl.range(0, n_rep):\n"
                "        with pl.section_cube():\n"
                "            pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=5)\n"
                + "".join(f"    {line}\n" for line in INNER.splitlines()) +
                "        with pl.section_vector():\n"
                "            pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=5)\n")])
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert "in the loop over `h`, AIC raises event id 5 for AIV0 but never waits for anything AIV0 raises" in error, \
        error
