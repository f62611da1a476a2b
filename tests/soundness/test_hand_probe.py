"""A probe of hand-pipelined kernels found four ways to have one accepted and wrong on the
emulator, each refused now:

- syncs in functions the kernel calls (`produce`/`consume`/`prime`/`drain` helpers, as
  production kernels write them), or only the intra-core flags `sync_src`/`sync_dst`: the
  kernel was not seen as pipelined by hand and was never checked;
- `auto_mutex=0` (or a value read from the environment) was taken as on;
- credits primed ahead (`for _ in range(DEPTH): set_cross_core(...)`) let the waiting core run
  DEPTH tasks ahead, more than the trip counts the check ran (they followed the tile groups'
  depths only), so a counter overflow at 8 tasks went unseen;
- a wait on a counter fed from two pipes is taken last in the check's run, which kept the
  waiting core from running ahead and hid the same overflow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages
from pto_transpile import transpile

ROOT = Path(__file__).parents[2]
HAND = (ROOT / "examples" / "hand_pipelined.py").read_text()
WORKSPACE = (Path(__file__).parent / "kernels" / "workspace_overflow.py").read_text()

#: hand_pipelined.py with its syncs in helpers; `early` releases `x` before reading it
def _in_helpers(early: bool) -> str:
    release = "    pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[t % 2])\n"
    return edited(HAND, [
        ("def produce(row, a, b_slot, a_l1, left_db, right_db, acc_db, x_db):\n",
         "def produce(t, row, a, b_slot, a_l1, left_db, right_db, acc_db, x_db):\n"
         "    pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[t % 2])\n"),
        ("def consume(row, sub_id, out, x_db, r_db):\n",
         "def consume(t, row, sub_id, out, x_db, r_db):\n"
         "    pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=EV_FULL[t % 2])\n"
         + (release if early else "")),
        ("    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)\n",
         "    pl.move(x, acc, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)\n"
         "    pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FULL[t % 2])\n"),
        ("                pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[t % 2])\n"
         "                produce(now.row, a, b_slot, a_l1, left_db, right_db, acc_db, x_db)\n"
         "                pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FULL[t % 2])\n",
         "                produce(t, now.row, a, b_slot, a_l1, left_db, right_db, acc_db, x_db)\n"),
        ("                pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=EV_FULL[(t - 1) % 2])\n"
         "                consume(before.row, sub_id, out, x_db, r_db)\n"
         "                pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])\n",
         "                consume(t - 1, before.row, sub_id, out, x_db, r_db)\n"),
        ("    pl.store(out, r, [row + sub_id * HALF, 0])\n",
         "    pl.store(out, r, [row + sub_id * HALF, 0])\n"
         + ("" if early else "    pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[t % 2])\n")),
        ("        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[0])\n"
         "        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[1])\n", "        prime(EV_FREE)\n"),
        ("        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[N % 2])\n"
         "        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=EV_FREE[(N + 1) % 2])\n",
         "        drain(EV_FREE)\n"),
        ("\n\n@pl.jit(", "\n\ndef prime(ids):\n    for e in ids:\n"
                       "        pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=e)\n\n\n"
                       "def drain(ids):\n    for e in ids:\n"
                       "        pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=e)\n\n\n@pl.jit("),
    ])


FLAGS_ONLY = '''\
import pypto_pro.language as pl

TILE = 32
HALF = 16


@pl.jit(auto_mutex=False)
def relu_kernel(a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32], out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32]):
    n = a.shape[0] // TILE
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        x = pl.make_tile(pl.TileType(shape=[HALF, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0)
        for i in pl.range(0, n):
            pl.load(x, a, [i * TILE + sub_id * HALF, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.relu(x, x)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.store(out, x, [i * TILE + sub_id * HALF, 0])
'''
#: the next load waits for the store: the flags order every pipe the tile passes
FLAGS_SOUND = FLAGS_ONLY.replace(
    "            pl.load(x, a, [i * TILE + sub_id * HALF, 0])\n",
    "            if i > 0:\n"
    "                pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)\n"
    "            pl.load(x, a, [i * TILE + sub_id * HALF, 0])\n").replace(
    "            pl.store(out, x, [i * TILE + sub_id * HALF, 0])\n",
    "            pl.store(out, x, [i * TILE + sub_id * HALF, 0])\n"
    "            if i < n - 1:\n"
    "                pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)\n")
#: the same pipeline over a static 12 tiles, its credits primed on MTE2 and given back on MTE3
MIXED = edited(WORKSPACE, [
    ("DEPTH = 8", "NT = 12\nDEPTH = 8"),
    ("    a: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n", "    a: pl.Tensor[[NT * TILE, TILE], pl.DT_FP32],\n"),
    ("    ws: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n    out: pl.Tensor[[pl.DYNAMIC, TILE], pl.DT_FP32],\n",
     "    ws: pl.Tensor[[NT * TILE, TILE], pl.DT_FP32],\n    out: pl.Tensor[[NT * TILE, TILE], pl.DT_FP32],\n"),
    ("        for _ in range(DEPTH):\n            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=EV_FREE)\n",
     "        for _ in range(DEPTH):\n            pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=EV_FREE)\n"),
])
OVERFLOW = "more than 15 sets of event id 0 from AIC can be pending at once"
#: the credits raised after a first handshake (a wait), not before any
HANDSHAKE = edited(WORKSPACE, [
    ("EV_FREE = 1", "EV_FREE = 1\nEV_GO = 2"),
    ("        pl.move(right, b_slot)\n",
     "        pl.move(right, b_slot)\n        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=EV_GO)\n"),
    ("        for _ in range(DEPTH):\n            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=EV_FREE)\n",
     "        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=EV_GO)\n"
     "        for _ in range(DEPTH):\n            pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=EV_FREE)\n"),
])


def test_syncs_in_helpers_are_checked():
    (message,) = error_messages(transpile(_in_helpers(early=True), path="k.py"))
    assert "writes `x_db[0]`" in message and "`pl.relu` on V of AIV0 reads `x_db[0]`" in message, message
    assert error_messages(transpile(_in_helpers(early=False), path="k.py")) == []


def test_intra_core_flags_alone_make_a_kernel_pipelined_by_hand():
    messages = error_messages(transpile(FLAGS_ONLY, path="k.py"))
    assert messages and all("the hand-written syncs of `relu_kernel` are not sound" in m for m in messages)
    assert error_messages(transpile(FLAGS_SOUND, path="k.py")) == []


@pytest.mark.parametrize("value, module", [("0", ""), ("None", ""),
                                           ("AUTO", 'import os\n\nAUTO = os.environ.get("PTO_AUTO", "1") == "1"\n')])
def test_auto_mutex_is_on_only_when_it_surely_is(value, module):
    text = edited(HAND, [("@pl.jit(auto_mutex=True)", f"@pl.jit(auto_mutex={value})")])
    if module:
        text = edited(text, [("import pypto_pro.language as pl\n", "import pypto_pro.language as pl\n" + module)])
    (first, *_) = error_messages(transpile(text, path="k.py"))
    assert "`pl.load` on MTE2 of AIC writes `a_l1[0]`" in first or "writes `a_l1[0]`" in first, first


@pytest.mark.campaign  # the credits measure's paths run in test_probe_h83/h84 by default
def test_credits_primed_ahead_are_run_past():
    (message,) = error_messages(transpile(WORKSPACE, path="k.py"))
    assert OVERFLOW in message and "(shown with `a.shape[0] // 32` = 8)" in message, message
    one_less = WORKSPACE.replace("DEPTH = 8", "DEPTH = 7")  # 14 pending at the most
    assert error_messages(transpile(one_less, path="k.py")) == []


def test_credits_primed_after_a_handshake_count_too():
    (message,) = error_messages(transpile(HANDSHAKE, path="k.py"))
    assert OVERFLOW in message, message


def test_auto_mutex_given_through_keyword_unpacking_is_read():
    text = edited(HAND, [("@pl.jit(auto_mutex=True)", "@pl.jit(**OPTIONS)"),
                         ("import pypto_pro.language as pl\n",
                          "import pypto_pro.language as pl\n\nOPTIONS = {\"auto_mutex\": False}\n")])
    # a dict of options the reader does not compute is taken as off: it orders nothing
    assert any("nothing orders the two" in m for m in error_messages(transpile(text, path="k.py")))


def test_a_wait_on_a_counter_of_two_pipes_may_run_ahead():
    (message,) = error_messages(transpile(MIXED, path="k.py"))
    assert OVERFLOW in message, message


@pytest.mark.emulator
@pytest.mark.parametrize("name, text, shapes, verdict", [
    ("helpers", _in_helpers(early=True), None, "race"),
    ("workspace", WORKSPACE, {n: (256, 32) for n in ("a", "ws", "out")}, "overflow"),
    ("workspace, 7 credits", WORKSPACE.replace("DEPTH = 8", "DEPTH = 7"), {n: (256, 32) for n in ("a", "ws", "out")},
     "ok"),
    ("mixed pipes", MIXED, None, "overflow"),
])
def test_the_emulator_agrees(name, text, shapes, verdict):
    from sim_runtime.verify import verify

    kernel = "hand_pipelined_kernel" if name == "helpers" else "ws_kernel"
    report = verify(text, text, kernel, path="k.py", shapes=shapes)
    assert report.rows[-1].verdict == verdict, (name, report.rows[-1].message)


def test_a_sync_under_a_test_the_check_cannot_decide_names_the_test_and_the_form_it_decides():
    """A vector-only kernel double-buffered by hand over a per-core range, its flags primed under
    `if t == core_id:` and drained under `if j > 0:` of a counter: the warning pointed at the sync
    and told to put no runtime condition around syncs (probe h134). It names the test and the form
    the check decides, which is proven (the same kernel over `pl.range(0, my_n)`)."""
    kernels = Path(__file__).parent / "kernels"
    text = (kernels / "h134_runtime_condition_drain.py").read_text(encoding="utf-8")
    (warning,) = [d for d in transpile(text, path="k.py").diagnostics if d.code == "PTO077"]
    assert "is under `if t == core_id:`, a test the check cannot decide" in warning.message \
        or "is under `if j > 0:`, a test the check cannot decide" in warning.message, warning.message
    counted = edited(text, [("    for t in pl.range(core_id, n_tiles, num_cores):\n        if t == core_id:\n",
                             "    my_n = (n_tiles - core_id + num_cores - 1) // num_cores\n"
                             "    for k in pl.range(0, my_n):\n        t = core_id + k * num_cores\n"
                             "        if k == 0:\n"), ("    if j > 0:\n", "    if my_n > 0:\n")])
    assert [d.code for d in transpile(counted, path="k.py").diagnostics if d.severity != "note"] == []
