"""Probe h83's holes: kernels `--check` accepted whose pipelined run overflowed an event counter
or raced on the emulator while the serial run was ok, and two refusals whose help misled.

- Credits a core primes after a first handshake (the vector cores wait for the cube once, then
  raise `range(8 if d == 7 else 1)` sets), chosen by a scalar or by the count's parity, in a
  kernel the transform pipelines or one pipelined by hand; and credits raised in a stage's
  first task after the core's first wait. The check counted only the sets raised before a core's
  first wait, so the runs that prime more kept the trip counts drawn for one credit; each credit
  lets the cube run a task further ahead, and its own event 5 overflows at 24 tiles. Sets of one
  event in a row now count as credits wherever they come (`check._primed_ahead`).
- A residue class of the trip count run only short of the bound (`n % 16 == 15` guarding a
  write the next task reads, or choosing how often the cube waits for a credit): the counts up
  to the bound hold one count of each class, n = 15, 15 tasks, and the defect needs a task 15.
  With a loop to `n + 10`, whose counts below its zero no launch makes, the class was never run.
  The counts now go `k - 1` past the bound (`check._trip_configs`).
- A residue of a count taken before any loop over it (`r15 = n % 4 == 3` above the loops): the
  discovery run took it of a run-time value, not of a trip count, and the runs at `m = 0` kept
  the inner count at its zero. The discovery run now runs again with such roots bound from the
  start (`check._discover`); the same made a valid kernel refused as taking the residue "at some
  values only".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import brief_stage, credits_by_parameter, edited, error_messages, hand_written_errors
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"
CREDITS = credits_by_parameter()
PICKED = (KERNELS / "workspace_pick.py").read_text(encoding="utf-8")
ROWS = (KERNELS / "rows_two_stages.py").read_text(encoding="utf-8")
CHOSEN = "range(8 if d == 7 else 1)"
OVERFLOW = "more than 15 sets of event id 5 from AIC can be pending at once"
RACE = "writes `ws[0:16, 0:32]` while stage `project` (task "

HANDSHAKE = edited(CREDITS, [(
    "    with pl.section_vector():\n        for _c in range(8 if d == 7 else 1):\n",
    "    with pl.section_cube():\n        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=7)\n"
    "    with pl.section_vector():\n        pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=7)\n"
    "        for _c in range(8 if d == 7 else 1):\n")])
#: a barrier of every core instead of the handshake
AFTER_BARRIER = edited(CREDITS, [(
    "    with pl.section_vector():\n        for _c in range(8 if d == 7 else 1):\n",
    "    pl.system.sync_all(core_type=pl.SyncCoreType.MIX)\n"
    "    with pl.section_vector():\n        for _c in range(8 if d == 7 else 1):\n")])
#: the parity of the count chooses the credits; a loop over it first makes it a trip count
BY_PARITY = edited(HANDSHAKE, [("    n = a.shape[0] // TILE\n",
                                "    n = a.shape[0] // TILE\n    for _k in pl.range(0, n):\n        pass\n")]).replace(
    CHOSEN, "range(8 if n % 2 == 0 else 1)")
BY_HAND = edited(HANDSHAKE, [("@pl.jit(auto_mutex=True, pipeline=pl.pipeline.PipelineConfig(preload=1))",
                              "@pl.jit(auto_mutex=True)")])
#: one credit before the loop, seven more raised in the vector stage's first task at `d = 7`
IN_FIRST_TASK = edited(CREDITS.replace(CHOSEN, "range(1)"), [
    ("def consume(i, sub_id, mid, out, r_db):\n    pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=5)\n",
     "def consume(i, sub_id, mid, out, r_db, d):\n    pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=5)\n"
     "    if i == 0:\n        for _c in range(7 if d == 7 else 0):\n"
     "            pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=6)\n"),
    ("            consume(i, sub_id, mid, out, r_db)\n", "            consume(i, sub_id, mid, out, r_db, d)\n")]) + (
    "    if n > 0:\n        with pl.section_cube():\n            for _c in range(7 if d == 7 else 0):\n"
    "                pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=6)\n")
#: the cube waits for a credit every 16 tasks where `n % 16 == 15`, every 2 elsewhere
SCHEDULE = "    if (i % 16 == 0 if n % 16 == 15 else i % 2 == 0):\n"
BY_RESIDUE = edited(CREDITS.replace(CHOSEN, "range(1)"), [
    ("def produce(i, a, mid, b_slot, a_l1, left_db, right_db, acc_db):\n    if i % 2 == 0:\n",
     "def produce(i, a, mid, b_slot, a_l1, left_db, right_db, acc_db, n):\n" + SCHEDULE),
    ("def consume(i, sub_id, mid, out, r_db):\n", "def consume(i, sub_id, mid, out, r_db, n):\n"),
    ("    pl.store(out, r, [i * TILE + sub_id * HALF, 0])\n    if i % 2 == 0:\n",
     "    pl.store(out, r, [i * TILE + sub_id * HALF, 0])\n" + SCHEDULE),
    ("            produce(i, a, mid, b_slot, a_l1, left_db, right_db, acc_db)\n",
     "            produce(i, a, mid, b_slot, a_l1, left_db, right_db, acc_db, n)\n"),
    ("            consume(i, sub_id, mid, out, r_db)\n", "            consume(i, sub_id, mid, out, r_db, n)\n")])

PICK = "    pl.store({0: ws, 1: ws2}[i % 2], res, [sub_id * HALF, 0])  # the pick the tests replace\n"
FINISH = "def finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha):\n"
CALL = "            finish(i, sub_id, out, ws, ws2, proj_vec_db, res_db, d, alpha)\n"
SCALARS = "    d: pl.DT_INT32,\n    alpha: pl.DT_FP32,\n"
#: the vector stage of task 14 writes `ws`, which the cube stage of task 15 loads, where `n % 16 == 15`
CLASS_RACE = edited(PICKED, [
    (FINISH, FINISH.replace("alpha)", "alpha, n)")),
    (PICK, "    if n % 16 == 15 and i % 16 == 14:\n        pl.store(ws, res, [sub_id * HALF, 0])\n"),
    (CALL, CALL.replace("alpha)", "alpha, n_blocks)"))])
#: every task writes `ws` where `n % 16 == 15`, in a loop of `n + 10` tasks over another tensor's rows
OFFSET_RACE = edited(PICKED, [
    (FINISH, FINISH.replace("alpha)", "alpha, n)")),
    (PICK, "    if n % 16 == 15:\n        pl.store(ws, res, [sub_id * HALF, 0])\n"),
    (SCALARS, SCALARS + "    c: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"),
    ("    n_blocks = a.shape[0] // BLOCK\n    for i in pl.range(0, n_blocks):\n",
     "    n_blocks = c.shape[0] // BLOCK\n    for i in pl.range(0, n_blocks + 10):\n"),
    (CALL, CALL.replace("alpha)", "alpha, n_blocks)"))])
#: the same class, each block looping over its own count (the help of the refusal of `n % 16` with
#: `pl.range(core_id, n, num_cores)`, applied), `ws` rows per block
PER_CORE_CLASS = edited(PICKED, [
    ("def project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db):\n",
     "def project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db, core_id):\n"),
    ("    pl.load(cur_w, ws, [0, 0])\n", "    pl.load(cur_w, ws, [core_id * BLOCK, 0])\n"),
    (FINISH, FINISH.replace("alpha)", "alpha, core_id, my_n, j)")),
    (PICK, "    if my_n % 16 == 15 and j % 16 == 14:\n"
           "        pl.store(ws, res, [core_id * BLOCK + sub_id * HALF, 0])\n"),
    ("    ws: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n", "    ws: pl.Tensor[[8 * BLOCK, BLOCK], pl.DT_FP32],\n"),
    ("    for i in pl.range(0, n_blocks):\n",
     "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    num_cores = pl.get_block_num()\n"
     "    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n    for j in pl.range(0, my_n):\n"
     "        i = core_id + j * num_cores\n"),
    ("            project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)\n",
     "            project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db, core_id)\n"),
    (CALL, CALL.replace("alpha)", "alpha, core_id, my_n, j)"))])
#: an outer loop over `m` whose class `m % 8 == 7` writes `ws` at its iteration 7, task 4
OUTER_CLASS = edited(PICKED, [
    (FINISH, FINISH.replace("alpha)", "alpha, m, r)")),
    (PICK, "    rr = r % 8 == 7\n    mm = m % 8 == 7\n    qq = i % 8 == 4\n"
           "    if rr and mm and qq:\n        pl.store(ws, res, [sub_id * HALF, 0])\n"),
    ("    ws2: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n", "    ws2: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"),
    ("    for i in pl.range(0, n_blocks):\n        with pl.section_cube():\n"
     "            project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)\n"
     "        with pl.section_vector():\n" + CALL,
     "    m = ws2.shape[0] // BLOCK\n    for r in pl.range(0, m):\n        for i in pl.range(0, n_blocks):\n"
     "            with pl.section_cube():\n"
     "                project(i, a, ws, a_l1_db, w_l1_db, left_db, right_db, acc_db, proj_vec_db)\n"
     "            with pl.section_vector():\n    " + CALL.replace("alpha)", "alpha, m, r)"))])
#: a residue of `n` taken above the loops over it, used where the outer loop over `m` runs none
BEFORE_LOOPS = edited(PICKED, [
    (FINISH, FINISH.replace("alpha)", "alpha, r15, z)")),
    (PICK, "    if i % 4 == 3:\n        pl.store(ws2, res, [sub_id * HALF, 0])\n"
           "    if r15 and z:\n        pl.store(ws, res, [sub_id * HALF, 0])\n"),
    (SCALARS, SCALARS + "    c: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"
                        "    e: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"),
    ("    n_blocks = a.shape[0] // BLOCK\n",
     "    n_blocks = a.shape[0] // BLOCK\n    n = c.shape[0] // BLOCK\n    m = e.shape[0] // BLOCK\n"
     "    r15 = n % 4 == 3\n    for r in pl.range(0, m):\n        for _k in pl.range(0, n):\n            pass\n"
     "    z = m == 0\n"),
    (CALL, CALL.replace("alpha)", "alpha, r15, z)"))])
#: valid: a flag from a residue of the count, taken above the pipeline loop
FLAG_ABOVE = edited(ROWS, [
    ("def finish(i, sub_id, out, proj_vec_db, res_db):\n", "def finish(i, sub_id, out, proj_vec_db, res_db, r):\n"),
    ("    pl.muls(res, proj, 0.5)\n", "    if r:\n        pl.muls(res, proj, 0.5)\n    else:\n"
                                    "        pl.muls(res, proj, 2.0)\n"),
    ("    n_blocks = a.shape[0] // BLOCK\n", "    n_blocks = a.shape[0] // BLOCK\n    r = n_blocks % 16 == 15\n"),
    ("            finish(i, sub_id, out, proj_vec_db, res_db)\n",
     "            finish(i, sub_id, out, proj_vec_db, res_db, r)\n")])


@pytest.mark.parametrize(("text", "preload", "shown"), [
    # the schedule by a residue here; the other forms take the path of test_probe_h84's ping-pong
    # (`_primed_ahead`), 5 s each, in the campaign
    pytest.param(HANDSHAKE, 1, "d=7", marks=pytest.mark.campaign),
    pytest.param(HANDSHAKE, 2, "d=7", marks=pytest.mark.campaign),
    pytest.param(BY_PARITY, 1, "= 16", marks=pytest.mark.campaign),
    pytest.param(IN_FIRST_TASK, 1, "d=7", marks=pytest.mark.campaign),
    pytest.param(AFTER_BARRIER, 1, "d=7", marks=pytest.mark.campaign),
    (BY_RESIDUE, 1, "= 31")], ids=["handshake", "handshake-p2", "parity", "first-task", "barrier",
                               "residue-schedule"])
def test_credits_past_a_first_wait_are_run_past(text, preload, shown):
    [error] = error_messages(transpile(brief_stage(text), path="k.py", preload=preload))
    assert OVERFLOW in error and shown in error, error


@pytest.mark.campaign  # the hand-written path of credits is test_probe_h84's in the default suite
def test_credits_past_a_first_wait_of_a_hand_written_pipeline_are_run_past():
    errors = hand_written_errors(brief_stage(BY_HAND))
    assert len(errors) == 1 and "more than 15 sets of event id 5" in errors[0].message, errors


def test_as_many_credits_for_every_value_is_proven():
    text = brief_stage(HANDSHAKE).replace(CHOSEN, "range(1)")
    assert text.count("for _c in range(1):") == 2
    assert error_messages(transpile(text, path="k.py", preload=1)) == []


@pytest.mark.parametrize(("text", "task"), [(CLASS_RACE, 15), (OFFSET_RACE, 1), (PER_CORE_CLASS, 15)],
                         ids=["class", "offset-loop", "per-core"])
def test_a_residue_class_is_run_past_the_bound(text, task):
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert f"{RACE}{task})" in error, error


@pytest.mark.campaign  # 50 s: every outer count to 7 past its bound, at each inner count
def test_a_residue_class_of_an_outer_count_is_run_past_the_bound():
    [error] = error_messages(transpile(OUTER_CLASS, path="k.py", preload=1))
    # iteration 7 of the outer loop, tasks 4 and 5 of it: a class run at m = 7 alone had no iteration 8
    assert "stage `project` (task 40)" in error and "stage `finish` (task 39)" in error, error


@pytest.mark.campaign  # 3 s, the suite's time
def test_a_residue_of_a_count_taken_in_some_iterations_only_is_refused():
    # `m % 8` taken only where `r % 8 == 7`: never in the discovery run's 3 outer iterations, so
    # the counts were not chosen for its classes; its help (take it in a statement of its own) is
    # `OUTER_CLASS`, whose race the runs then reach
    short_circuit = OUTER_CLASS.replace("    rr = r % 8 == 7\n    mm = m % 8 == 7\n    qq = i % 8 == 4\n"
                                        "    if rr and mm and qq:\n",
                                        "    if r % 8 == 7 and m % 8 == 7 and i % 8 == 4:\n")
    assert short_circuit != OUTER_CLASS
    [error] = error_messages(transpile(short_circuit, path="k.py", preload=1))
    assert "a residue `% 8` of `ws2.shape[0] // 32`, a trip count, is taken" in error \
        and "in some iterations only" in error, error


def test_a_residue_taken_above_the_loops_is_a_residue_of_the_trip_count():
    [error] = error_messages(transpile(BEFORE_LOOPS, path="k.py", preload=1))
    # its runs, every count of `n` at `m = 0` among them, are more than the check makes
    assert "runs (period 4" in error, error


def test_a_flag_from_a_residue_above_the_loop_is_proven():
    assert error_messages(transpile(FLAG_ABOVE, path="k.py", preload=1)) == []


def test_a_test_against_the_wrong_zero_names_the_loops_own():
    text = edited(ROWS, [
        ("def finish(i, sub_id, out, proj_vec_db, res_db):\n", "def finish(i, n, sub_id, out, proj_vec_db, res_db):\n"),
        ("    pl.muls(res, proj, 0.5)\n", "    if n > 0:\n        pl.muls(res, proj, 0.5)\n    else:\n"
                                        "        pl.muls(res, proj, 2.0)\n"),
        ("    for i in pl.range(0, n_blocks):\n", "    for i in pl.range(0, n_blocks + 2):\n"),
        ("            finish(i, sub_id, out, proj_vec_db, res_db)\n",
         "            finish(i, n_blocks, sub_id, out, proj_vec_db, res_db)\n")])
    [error] = error_messages(transpile(text, path="k.py", preload=1))
    assert "test `a.shape[0] // 32` only against -2, where its loop runs no iteration" in error, error
    # the help applied
    assert error_messages(transpile(text.replace("    if n > 0:\n", "    if n > -2:\n"), path="k.py", preload=1)) == []


def _rows(text: str, shapes: dict, scalars: dict) -> tuple[str, str]:
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    serial, piped = verify(text, code, "kern", path="k.py", shapes=shapes, scalars=scalars).rows[:2]
    return serial.verdict, piped.verdict


@pytest.mark.emulator
@pytest.mark.campaign  # runs of 24 tiles, serial and pipelined
def test_the_emulator_overflows_where_the_credits_are_primed_past_a_wait():
    shapes = {"a": (768, 32), "mid": (768, 32), "out": (768, 32)}
    for text, d in ((HANDSHAKE, 7), (IN_FIRST_TASK, 7)):
        assert _rows(text, shapes, {"d": 1}) == ("ok", "ok")
        serial, piped = _rows(text, shapes, {"d": d})
        assert serial == "ok" and piped.startswith("overflow"), piped


@pytest.mark.emulator
@pytest.mark.campaign  # runs of 31 tasks
def test_the_emulator_races_in_the_long_run_of_the_class():
    for n, verdict in ((15, "ok"), (31, "race")):
        shapes = {"a": (32 * n, 32), "out": (32 * n, 32)}
        serial, piped = _rows(CLASS_RACE, shapes, {"d": 1, "alpha": 0.5})
        assert serial == "ok" and piped.startswith(verdict), (n, piped)


@pytest.mark.emulator
@pytest.mark.campaign
def test_the_emulator_runs_the_flag_above_the_loop_at_every_class():
    for n in (1, 15, 16, 31):
        assert _rows(FLAG_ABOVE, {"a": (32 * n, 32), "out": (32 * n, 32)}, {}) == ("ok", "ok"), n
