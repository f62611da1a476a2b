"""A per-core range gives each block its share of the tasks (probe h77).

`pl.range(core_id, n, num_cores)` runs, on block b of B, ceil((n - b) / B) of the n tasks one
block runs: every count from 0 to n on some launch. The check runs one block, so it must run
the range at each such count, and nothing but the range's own count may read n. Before:
- a range over a static count (`a.shape[0] // BLOCK` of a static shape) was run at that count
  only, so a vector epilogue whose load of a workspace the cube's prologue stored was ordered
  only through the slot the block's last task used was proven, and raced at `--block-dim 2`
  (the block's one task left the epilogue's slot unused) and 3 (a block with no task);
- over a `pl.DYNAMIC` count, `n > 0` and `(n - 1) % 2` read the whole count as the block's:
  the same epilogue under `if n_blocks > 0:`, picking `res_db[(n_blocks - 1) % 2]`, raced at
  two blocks, and a hand-pipelined tail waiting on event `(n - 1) % 2` deadlocked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, judged_runs
from pto_transpile import codes, transpile
from sim_runtime.verify import verify

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
ROWS = "    a: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n    out: pl.Tensor[[pl.DYNAMIC, BLOCK], pl.DT_FP32],\n"
W = "    w: pl.Tensor[[BLOCK, BLOCK], pl.DT_FP32],\n"
PROLOGUE = """        # a prologue of each block: ws[core_id] = w @ w, which the vector cores' epilogue reads
        l0 = left_db.current()
        r0 = right_db.current()
        c0 = acc_db.current()
        pl.move(l0, w_slot)
        pl.move(r0, w_slot)
        pl.matmul(c0, l0, r0)
        pl.store(ws, c0, [core_id * BLOCK, 0])
"""
EPILOGUE = """
    with pl.section_vector():
{guard}        e = {slot}
{indent}        pl.load(e, ws, [core_id * BLOCK + sub_id * HALF, 0])
{indent}        pl.muls(e, e, 2.0)
{indent}        pl.store(out2, e, [core_id * BLOCK + sub_id * HALF, 0])
"""


def _spread(static: bool, slot: str = "res_db.next()", guard: str = "", epilogue: bool = True) -> str:
    """The base kernel over the blocks (`pl.range(core_id, n_blocks, num_cores)`), two row blocks
    of a static or a `pl.DYNAMIC` shape, with a prologue on the cube storing a workspace row per
    block and a vector epilogue after the loop loading it into the slot `slot`."""
    rows = ROWS.replace("pl.DYNAMIC", "NT * BLOCK") if static else ROWS
    tail = EPILOGUE.format(guard=f"        if {guard}:\n" if guard else "", indent="    " if guard else "",
                           slot=slot).replace("\n        e =", "\n            e =" if guard else "\n        e =")
    return edited(BASE, [
        ("BLOCK = 32\n", "BLOCK = 32\nNT = 2\nNB_MAX = 4\n"),
        (ROWS, rows),
        (W, W + "    ws: pl.Tensor[[NB_MAX * BLOCK, BLOCK], pl.DT_FP32],\n"
                "    out2: pl.Tensor[[NB_MAX * BLOCK, BLOCK], pl.DT_FP32],\n"
                "):\n    sub_id = pl.get_subblock_idx()\n    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                "    num_cores = pl.get_block_num()\n"),
        ("):\n    proj_vec_db", "    proj_vec_db"),
        ("        pl.load(w_slot, w, [0, 0])\n", "        pl.load(w_slot, w, [0, 0])\n" + PROLOGUE),
        ("    sub_id = pl.get_subblock_idx()\n    n_blocks", "    n_blocks"),
        ("    for i in pl.range(0, n_blocks):\n", "    for i in pl.range(core_id, n_blocks, num_cores):\n"),
    ]) + (tail if epilogue else "")


COUNT = "the trip count of a per-core range"


def _errors(text: str, preload: int = 1) -> list:
    return [d for d in transpile(text, path="k.py", preload=preload).diagnostics if d.is_error]


def _runs_at_two_blocks(text: str, shapes: dict) -> list[str]:
    """The emulator's verdicts on the serial and the pipelined kernel (the check skipped) at two blocks."""
    code = transpile(text, path="k.py", preload=1, _skip_rules=["PTO061"]).code
    assert code is not None
    return [row.verdict for row in verify(text, code, "kern", path="k.py", block_dim=2, shapes=shapes).rows]


@pytest.mark.parametrize("preload", [1, 2])
def test_a_static_count_is_run_at_every_share_a_block_takes_and_the_epilogue_race_is_named(preload):
    text = _spread(static=True)
    [d] = _errors(text, preload)
    assert d.code == codes.PIPELINE_NOT_PROVEN, d
    assert "`pl.load` on MTE2 of AIV0 reads `ws" in d.message and "`pl.store` on FIX of AIC writes `ws" in d.message
    assert d.line == text.splitlines().index("        pl.load(e, ws, [core_id * BLOCK + sub_id * HALF, 0])") + 1


def test_the_emulator_shows_the_static_kernel_race_at_two_blocks():
    serial, piped = _runs_at_two_blocks(_spread(static=True), {})
    assert serial == "ok" and piped != "ok", (serial, piped)


def test_a_static_per_core_range_without_the_epilogue_is_proven_from_every_count(monkeypatch):
    runs = judged_runs(monkeypatch)
    assert _errors(_spread(static=True, epilogue=False)) == []
    # two tasks on one block; on B blocks a block takes 0, 1 or 2 of them
    assert sorted(r.per_core_counts.get(2, 2) for r in runs) == [0, 1, 2]


@pytest.mark.parametrize(("slot", "guard", "words"), [
    ("res_db[(n_blocks - 1) % 2]", "n_blocks > 0", "`n_blocks > 0` tests `a.shape[0] // 32`, " + COUNT),
    ("res_db[(n_blocks - 1) % 2]", "", "`(n_blocks - 1) % 2` takes a residue of `a.shape[0] // 32`, " + COUNT),
], ids=["test", "residue"])
def test_the_whole_count_of_a_dynamic_per_core_range_is_read_only_as_its_stop(slot, guard, words):
    text = _spread(static=False, slot=slot, guard=guard)
    [d] = _errors(text)
    assert d.code == codes.PIPELINE_NOT_PROVEN and words in d.message, d.message
    assert d.hint.startswith("The check proves a loop of run-time trip count"), d.hint


def test_the_emulator_shows_the_dynamic_kernel_race_at_two_blocks():
    text = _spread(static=False, slot="res_db[(n_blocks - 1) % 2]", guard="n_blocks > 0")
    serial, piped = _runs_at_two_blocks(text, {"a": (64, 32), "out": (64, 32)})
    assert serial == "ok" and piped != "ok", (serial, piped)


def test_a_loop_over_the_whole_count_of_a_per_core_range_is_refused():
    text = _spread(static=False, epilogue=False) + (
        "    with pl.section_vector():\n"
        "        for j in pl.range(0, n_blocks):\n"
        "            e = res_db.next()\n"
        "            pl.load(e, a, [j * BLOCK + sub_id * HALF, 0])\n")
    [d] = _errors(text)
    assert "`pl.range(0, n_blocks)` counts up to `a.shape[0] // 32`, the trip count of a per-core range" in d.message, \
        d.message


def test_the_hint_applied_the_block_s_own_count_is_proven_and_runs_clean():
    """The help's form: a loop from 0 to the block's own count, whose residue picks the slot."""
    text = edited(_spread(static=False, slot="res_db[(my_n - 1) % 2]", guard="my_n > 0"), [(
        "    for i in pl.range(core_id, n_blocks, num_cores):\n",
        "    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n"
        "    for k in pl.range(0, my_n):\n        i = core_id + k * num_cores\n")])
    result = transpile(text, path="k.py", preload=1)
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    for rows in (32, 64, 96):
        shapes = {"a": (rows, 32), "out": (rows, 32)}
        report = verify(text, result.code, "kern", path="k.py", block_dim=2, shapes=shapes)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], rows


OWN_COUNT = ("    for i in pl.range(core_id, n_blocks, num_cores):\n",
             "    for j in pl.range(core_id, n_blocks, num_cores):\n        pl.printf(\"x\\n\")\n"
             "    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n"
             "    for k in pl.range(0, my_n):\n        i = core_id + k * num_cores\n")
AS_PARAMETER = [("):\n    sub_id = pl.get_subblock_idx()",
                 "    nb: pl.DT_INT32,\n):\n    sub_id = pl.get_subblock_idx()"),
                ("    n_blocks = a.shape[0] // BLOCK\n", "    n_blocks = nb\n")]


SPELLED = ("    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n",
           "    my_n = (n_blocks - 1 - core_id) // num_cores + 1\n")


#: the block's tasks from its first on, a name a later loop counts up to (probe h89)
THROUGH_REST = ("    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n",
                "    rest = n_blocks - core_id\n    my_n = (rest + num_cores - 1) // num_cores\n")
TAIL = "\n    with pl.section_vector():\n        for t in pl.range(0, rest):\n            pl.printf(\"tail\\n\")\n"


@pytest.mark.parametrize("count", ["dimension", "parameter", "parameter, spelled otherwise"])
def test_a_loop_over_the_count_before_the_block_s_own_count_keeps_it_a_run_time_value(count):
    """A per-core loop over `n_blocks` makes it a trip-count root; the block's own count computed
    from it after (`(n_blocks - core_id + num_cores - 1) // num_cores`) was refused as "not a
    run-time size plus a constant" (probe h86), and from a scalar parameter even without that
    loop. It is the run-time value it was, and the kernel is proven; picking the wrong slot after
    the loop stays refused."""
    text = edited(_spread(static=False, slot="res_db[(my_n - 1) % 2]", guard="my_n > 0"), [OWN_COUNT])
    if count.startswith("parameter"):
        text = edited(text, AS_PARAMETER)
    if count.endswith("otherwise"):  # the same count on every block (probe h89: `n_blocks - 1` is moved)
        text = edited(text, [SPELLED])
    result = transpile(text, path="k.py", preload=1)
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    for rows, blocks in ((96, 2), (160, 3)):
        report = verify(text, result.code, "kern", path="k.py", block_dim=blocks,
                        shapes={"a": (rows, 32), "out": (rows, 32)},
                        scalars={"nb": rows // 32} if count.startswith("parameter") else None)
        assert [row.verdict for row in report.rows] == ["ok", "ok"], (rows, blocks)
    wrong = text.replace("res_db[(my_n - 1) % 2]", "res_db[my_n % 2]")
    assert "`ws[0:32, 0:32]`, and nothing orders the two" in " ".join(d.message for d in _errors(wrong))


@pytest.mark.campaign  # two roots, the later loop's and the pipeline loop's: 14 s
def test_the_block_s_count_through_a_name_a_later_loop_counts_up_to_is_proven():
    """`rest = n_blocks - core_id`, a root where a later loop counts up to it, plus the block
    count (`my_n = (rest + num_cores - 1) // num_cores`) was Sym arithmetic: the pipeline loop
    over `my_n` was refused, blamed on itself (probe h89). A block's own run-time value plus the
    block count is named as a parameter plus it is; blocks whose tasks meet stay refused."""
    text = edited(_spread(static=False, epilogue=False), [OWN_COUNT, *AS_PARAMETER, THROUGH_REST]) + TAIL
    result = transpile(text, path="k.py", preload=1)
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
    for rows, blocks in ((96, 2), (160, 3)):
        report = verify(text, result.code, "kern", path="k.py", block_dim=blocks,
                        shapes={"a": (rows, 32), "out": (rows, 32)}, scalars={"nb": rows // 32})
        assert [row.verdict for row in report.rows] == ["ok", "ok"], (rows, blocks)
    assert _errors(text.replace("i = core_id + k * num_cores", "i = core_id + k"))  # blocks meet


@pytest.mark.parametrize("tasks", [10, 70])
def test_a_long_static_count_is_proven_for_every_count_in_a_few_runs(monkeypatch, tasks):
    """Past `MAX_SHARES_RUN_BY_RUN` tasks the static count is followed as a size known only at
    run time, whose proof holds for every count and every share: 70 tasks were refused (a run for
    each of the 71 shares), and FlashAttention with 16 static query tiles took 86 s."""
    runs = judged_runs(monkeypatch)
    assert _errors(_spread(static=True, epilogue=False).replace("NT = 2\n", f"NT = {tasks}\n")) == []
    assert len(runs) < 12 and all(r.symbolic_dims for r in runs[1:]), [r.trips for r in runs]


@pytest.mark.parametrize(("tasks", "shown"), [
    (10, "(shown with a block running 0 of the 10 tasks of a per-core range)"),
    (70, "(with the static sizes taken as sizes known only at run time: the per-core range's shares are too many "
         "to run one by one)"),
])
def test_a_long_static_count_with_the_epilogue_race_is_refused_naming_it(tasks, shown):
    """Wrong at some count, the kernel is judged share by share at its own; past the shares the
    check runs one by one, the race the proof for every count found is named."""
    [d] = _errors(_spread(static=True).replace("NT = 2\n", f"NT = {tasks}\n"))
    assert "`pl.load` on MTE2 of AIV0 reads `ws" in d.message and "`pl.store` on FIX of AIC writes `ws" in d.message
    assert d.message.endswith(shown), d.message


GUARDED = '    with pl.section_vector():\n        if n_blocks > 1:\n            pl.printf("many\\n")\n'


def test_a_static_count_outside_the_argument_for_every_count_is_proven_share_by_share(monkeypatch):
    """`n_blocks > 1` tests the whole count, which the proof for every count refuses (a block runs
    only its share); the count being static, each share is run instead."""
    runs = judged_runs(monkeypatch)
    assert _errors(_spread(static=True, epilogue=False).replace("NT = 2\n", "NT = 10\n") + GUARDED) == []
    assert sorted(r.per_core_counts.get(10, 10) for r in runs if not r.symbolic_dims) == list(range(11))


def test_past_the_shares_run_one_by_one_the_construct_that_keeps_it_out_is_named_and_the_help_applied_is_proven():
    text = _spread(static=True, epilogue=False).replace("NT = 2\n", "NT = 70\n") + GUARDED
    [d] = _errors(text)
    assert "`n_blocks > 1` tests `a.shape[0] // 32`, " + COUNT in d.message, d.message
    assert d.hint.startswith("The check proves a loop of run-time trip count"), d.hint
    assert _errors(text.replace("        if n_blocks > 1:\n", "        if NT > 1:\n")) == []


PER_CORE = "    for i in pl.range(core_id, n_blocks, num_cores):\n"


def test_a_per_core_range_whose_runs_never_give_a_block_no_task_is_refused_and_the_help_applied_is_proven():
    """`pl.range(core_id, n + 1, num_cores)` runs at least one task at every count the check runs n
    at (from 0), while a block past the last task runs none (probe h78: the epilogue race of the
    tests above, at 32 rows on three blocks)."""
    text = edited(_spread(static=False), [(PER_CORE, PER_CORE.replace("n_blocks,", "n_blocks + 1,"))])
    [d] = _errors(text)
    assert "`pl.range(core_id, n_blocks + 1, num_cores)` gives each block at least 1 task in every run the check " \
           "makes" in d.message, d.message
    # one expression of the dimension: its least value gives no task
    fixed = edited(_spread(static=False, epilogue=False), [
        ("    n_blocks = a.shape[0] // BLOCK\n", "    n_blocks = (a.shape[0] + BLOCK) // BLOCK\n")])
    assert _errors(fixed) == []


def test_two_per_core_ranges_over_one_count_that_end_apart_are_refused():
    """Their shares are tied to the one count in the runs, not on the blocks of a launch."""
    text = _spread(static=False, epilogue=False) + (
        "    pl.system.sync_all()\n"
        "    for j in pl.range(core_id, n_blocks - 1, num_cores):\n"
        "        with pl.section_vector():\n"
        "            e = res_db.next()\n"
        "            pl.load(e, a, [j * BLOCK + sub_id * HALF, 0])\n")
    messages = [d.message for d in _errors(text)]
    assert any("`pl.range(core_id, n_blocks - 1, num_cores)` is a second per-core range over `a.shape[0] // 32` that "
               "starts, steps or ends elsewhere than the first" in m for m in messages), messages
    # the help applied: the same range, or a count of the second loop's own
    same = text.replace("pl.range(core_id, n_blocks - 1, num_cores)", "pl.range(core_id, n_blocks, num_cores)")
    assert _errors(same) == []
    own = text.replace("    for j in pl.range(core_id, n_blocks - 1, num_cores):\n",
                       "    m_blocks = out.shape[0] // BLOCK\n    for j in pl.range(core_id, m_blocks, num_cores):\n")
    assert _errors(own) == []


def test_a_static_per_core_range_s_last_iteration_test_gets_the_block_s_own_count_as_help():
    text = edited(_spread(static=True, epilogue=False), [(
        "            finish(i, sub_id, out, proj_vec_db, res_db)\n",
        "            finish(i, sub_id, out, proj_vec_db, res_db)\n        if i + num_cores >= n_blocks:\n"
        "            with pl.section_vector():\n                e = res_db.next()\n")])
    [d] = _errors(text)
    assert "`i + num_cores >= n_blocks` tests the variable of a per-core range over a static count against other " \
           "than its start" in d.message, d.message
    assert "give the count a `pl.DYNAMIC` dimension and loop over the block's own count" in d.message
    # the help applied: the block's last task of its own count
    own = edited(_spread(static=False, epilogue=False), [
        (PER_CORE, "    my_n = (n_blocks - core_id + num_cores - 1) // num_cores\n    for k in pl.range(0, my_n):\n"
                   "        i = core_id + k * num_cores\n"),
        ("            finish(i, sub_id, out, proj_vec_db, res_db)\n",
         "            finish(i, sub_id, out, proj_vec_db, res_db)\n        if k == my_n - 1:\n"
         "            with pl.section_vector():\n                e = res_db.next()\n")])
    assert _errors(own) == []


def test_two_static_per_core_ranges_give_more_pairs_of_shares_than_the_check_runs():
    """64 and 63 tasks: every pair of shares, about 4,000 runs, ran for more than ten minutes, and
    was then refused past 256 runs; the proof for every count names why it cannot take the pair
    (their shares differ on a block as no count of theirs makes them), and the help is proven."""
    second = (
        "    pl.system.sync_all()\n"
        "    for j in pl.range(core_id, n_blocks - 1, num_cores):\n"
        "        with pl.section_vector():\n"
        "            e = res_db.next()\n"
        "            pl.load(e, a, [j * BLOCK + sub_id * HALF, 0])\n")
    two = _spread(static=True, epilogue=False).replace("NT = 2\n", "NT = 64\n") + second
    [d] = _errors(two)
    assert "`pl.range(core_id, n_blocks - 1, num_cores)` is a second per-core range over `a.shape[0] // 32` that " \
           "starts, steps or ends elsewhere than the first" in d.message, d.message
    same = two.replace("pl.range(core_id, n_blocks - 1, num_cores)", "pl.range(core_id, n_blocks, num_cores)")
    assert _errors(same) == []
