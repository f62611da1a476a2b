"""The two other ways production kernels split `n` tasks over the blocks, beside chunks with a
remainder: a balanced split, where the first `n % num_cores` blocks take one task more
(`start = core_id * base + min(core_id, rem)`, `cnt = base + 1 if core_id < rem else base`),
and the last block taking what is left (`cnt = chunk if core_id < num_cores - 1 else n -
start`). Both were refused ("the trip count of this loop is not static": a choice by the block
was no value the check could name). Each accepted form runs bit-identical on the emulator at 1
to 10 tiles on 2 to 4 blocks; each defect beside them is refused, and those that race do so on
the emulator."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from helpers import edited, spread
from pto_transpile import codes, transpile
from sim_runtime import verify

TILED = (Path(__file__).parents[2] / "examples" / "tiled_scale.py").read_text()
LOOP = "    for i in pl.range(core_id, n_blocks, num_cores):\n"
_SPLIT = "    base = n_blocks // num_cores\n    rem = n_blocks % num_cores\n"
BALANCED = _SPLIT + "    start = core_id * base + min(core_id, rem)\n"
LAST = "    chunk = n_blocks // num_cores\n    start = core_id * chunk\n"
TASKS = "    for j in pl.range(0, cnt):\n        i = start + j\n"

ACCEPTED = {
    "balanced": BALANCED + "    cnt = base + 1 if core_id < rem else base\n" + TASKS,
    "balanced, one more as a choice": BALANCED + "    cnt = base + (1 if core_id < rem else 0)\n" + TASKS,
    "balanced, start to start plus count": BALANCED + "    cnt = base + 1 if core_id < rem else base\n"
                                                      "    for i in pl.range(start, start + cnt):\n",
    "balanced, rem > core_id": BALANCED + "    cnt = base + 1 if rem > core_id else base\n" + TASKS,
    "the last block takes the rest": LAST + "    cnt = chunk if core_id < num_cores - 1 else n_blocks - start\n"
                                     + TASKS,
    "the last block, tested by ==": LAST + "    cnt = n_blocks - start if core_id == num_cores - 1 else chunk\n"
                                    + TASKS,
}

_IF = (_SPLIT + "    if core_id < rem:\n        cnt = base + 1\n        start = core_id * cnt\n"
       "    else:\n        cnt = base\n        start = core_id * base + rem\n")
ACCEPTED["balanced, as an if statement"] = _IF + TASKS
ACCEPTED["the last block, as an if statement"] = (LAST + "    if core_id == num_cores - 1:\n"
                                                         "        cnt = n_blocks - start\n"
                                                         "    else:\n        cnt = chunk\n" + TASKS)

# a probe's false refusals: the start as a conditional expression, other spellings of the tests,
# an end chosen by the block
ACCEPTED["balanced, the start as a choice"] = (_SPLIT + "    start = core_id * (base + 1) if core_id < rem else "
                                              "core_id * base + rem\n    cnt = base + 1 if core_id < rem else base\n"
                                              + TASKS)
ACCEPTED["balanced, core_id >= rem"] = BALANCED + "    cnt = base if core_id >= rem else base + 1\n" + TASKS
ACCEPTED["the last block, by num_cores - 1 == core_id"] = (LAST + "    cnt = n_blocks - start if num_cores - 1 == "
                                                                  "core_id else chunk\n" + TASKS)
ACCEPTED["the last block, by core_id >= num_cores - 1"] = (LAST + "    cnt = n_blocks - start if core_id >= "
                                                                  "num_cores - 1 else chunk\n" + TASKS)
# the block index shifted or compared by `<=` against a whole number
ACCEPTED["the last block, by core_id + 1 < num_cores"] = (LAST + "    cnt = chunk if core_id + 1 < num_cores else "
                                                                  "n_blocks - start\n" + TASKS)
ACCEPTED["the last block, by core_id <= num_cores - 2"] = (LAST + "    cnt = chunk if core_id <= num_cores - 2 else "
                                                                   "n_blocks - start\n" + TASKS)
ACCEPTED["balanced, core_id <= rem - 1"] = BALANCED + "    cnt = base + 1 if core_id <= rem - 1 else base\n" + TASKS
# the values may call `min`, `max` and `abs`: what the refusal of a name rebound in a branch with
# a call advises (`cnt = a if core_id < rem else b`) is then proven
ACCEPTED["the last block's rest clamped by max, as an if"] = (LAST + "    cnt = chunk\n"
                                                                    "    if core_id == num_cores - 1:\n"
                                                                    "        cnt = max(n_blocks - start, 0)\n" + TASKS)
ACCEPTED["the last block's rest clamped by max, as a choice"] = (
    LAST + "    cnt = max(n_blocks - start, 0) if core_id == num_cores - 1 else chunk\n" + TASKS)
ACCEPTED["the last block's end"] = (LAST + "    end = n_blocks if core_id == num_cores - 1 else start + chunk\n"
                                           "    for i in pl.range(start, end):\n")

# refused before although valid: one more counted as a truth value (the comparison is 1 or 0 in
# arithmetic: the choice `(1 if core_id < rem else 0)`), the remainder written by hand, `divmod`
ACCEPTED["balanced, one more as a truth value"] = BALANCED + "    cnt = base + (core_id < rem)\n" + TASKS
ACCEPTED["balanced, one more added as a truth value"] = (BALANCED + "    cnt = base\n    cnt += core_id < rem\n"
                                                    + TASKS)
ACCEPTED["balanced, one more as a truth value first"] = BALANCED + "    cnt = (rem > core_id) + base\n" + TASKS
ACCEPTED["balanced, the remainder by subtraction"] = (
    "    base = n_blocks // num_cores\n    rem = n_blocks - base * num_cores\n"
    "    start = core_id * base + min(core_id, rem)\n    cnt = base + 1 if core_id < rem else base\n" + TASKS)
ACCEPTED["balanced by divmod"] = ("    base, rem = divmod(n_blocks, num_cores)\n"
                                  "    start = core_id * base + min(core_id, rem)\n    cnt = base + (core_id < rem)\n"
                                  + TASKS)
# the end as the next block's start: this block's start plus its length
ACCEPTED["balanced, the end as the next block's start"] = (
    BALANCED + "    end = (core_id + 1) * base + min(core_id + 1, rem)\n    for i in pl.range(start, end):\n")
ACCEPTED["balanced, the next block's start the other way round"] = (
    BALANCED + "    end = min(rem, core_id + 1) + base * (core_id + 1)\n    for i in pl.range(start, end):\n")

# a loop from 0 to the end less the start (`pl.range(0, end - start)`, `i = start + j`): the loop
# from the start to the end, counted from 0
_END = BALANCED + "    end = (core_id + 1) * base + min(core_id + 1, rem)\n"
_LAST_END = LAST + "    end = n_blocks if core_id == num_cores - 1 else start + chunk\n"
_FROM_0 = "    for j in pl.range(0, end - start):\n        i = start + j\n"
ACCEPTED["balanced, a loop from 0 to the end less the start"] = _END + _FROM_0
ACCEPTED["the last block's end, a loop from 0 to the end less the start"] = _LAST_END + _FROM_0

# the block index shifted and compared by `<=` (`core_id + 1 <= rem` is `core_id < rem`), a test
# negated by `not`
ACCEPTED["balanced, core_id + 1 <= rem"] = BALANCED + "    cnt = base + 1 if core_id + 1 <= rem else base\n" + TASKS
ACCEPTED["balanced, not core_id >= rem"] = BALANCED + "    cnt = base + 1 if not core_id >= rem else base\n" + TASKS
ACCEPTED["the last block, as an if statement on not core_id < num_cores - 1"] = (
    LAST + "    if not core_id < num_cores - 1:\n        cnt = n_blocks - start\n"
           "    else:\n        cnt = chunk\n" + TASKS)

# the end as the start plus the count, a sum of three read left to right
ACCEPTED["balanced, the end as start + base + (core_id < rem)"] = (
    BALANCED + "    end = start + base + (core_id < rem)\n    for i in pl.range(start, end):\n")
ACCEPTED["balanced, the end as base + start + (core_id < rem)"] = (
    BALANCED + "    end = base + start + (core_id < rem)\n    for i in pl.range(start, end):\n")

# the truth value as a number by `int(...)` or `* 1` (refused before: "neither static nor a
# run-time value the check can name", and a chunk said to reach past its block)
ACCEPTED["balanced, one more as int of the test"] = BALANCED + "    cnt = base + int(core_id < rem)\n" + TASKS
ACCEPTED["balanced, one more as the test times 1"] = BALANCED + "    cnt = base + (core_id < rem) * 1\n" + TASKS

#: each with what the emulator shows at 7 or 8 tiles on 3 blocks ("race", or "error": a tile past the rows)
DEFECTS = {
    "one more on every block": (BALANCED + "    cnt = base + 1\n" + TASKS, "error"),
    "one more up to rem itself": (BALANCED + "    cnt = base + 1 if core_id <= rem else base\n" + TASKS, "race"),
    "a start by min(core_id, rem + 1)": (BALANCED.replace("min(core_id, rem)", "min(core_id, rem + 1)")
                                         + "    cnt = base + 1 if core_id < rem else base\n" + TASKS, "error"),
    "a start without the min": (BALANCED.replace(" + min(core_id, rem)", "")
                                + "    cnt = base + 1 if core_id < rem else base\n" + TASKS, "race"),
    "the arms swapped": (BALANCED + "    cnt = base if core_id < rem else base + 1\n" + TASKS, "error"),
    "the first block takes the rest": (LAST + "    cnt = n_blocks - start if core_id == 0 else chunk\n" + TASKS,
                                       "race"),
    "blocks past the first take the rest": (LAST + "    cnt = chunk if core_id > 0 else n_blocks - start\n" + TASKS,
                                            "race"),
    "the last two take the rest": (LAST + "    cnt = chunk if core_id < num_cores - 2 else n_blocks - start\n"
                                   + TASKS, "race"),
    "the last two take the rest, by core_id + 2 < num_cores": (LAST + "    cnt = chunk if core_id + 2 < num_cores else "
                                                                        "n_blocks - start\n" + TASKS, "race"),
    "one more in the offset": (BALANCED + "    cnt = base + 1 if core_id < rem else base\n"
                                          "    for j in pl.range(0, cnt):\n"
                                          "        i = start + j + (1 if core_id < rem else 0)\n", "race"),
    "an if statement, the else a task further": (_IF.replace("core_id * base + rem\n", "core_id * base + rem + 1\n")
                                                  + TASKS, "error"),
    "an if statement, one more up to rem": (_IF.replace("if core_id < rem:", "if core_id <= rem:") + TASKS, "race"),
    "an if statement, the then without one more": (_IF.replace("start = core_id * cnt", "start = core_id * base")
                                                    + TASKS, "race"),
    "one more as a truth value up to rem": (BALANCED + "    cnt = base + (core_id <= rem)\n" + TASKS, "race"),
    "one more as a truth value past rem": (BALANCED + "    cnt = base + (core_id >= rem)\n" + TASKS, "error"),
    "the remainder by subtraction, one more": ("    base = n_blocks // num_cores\n"
                                               "    rem = n_blocks - base * num_cores + 1\n"
                                               "    start = core_id * base + min(core_id, rem)\n"
                                               "    cnt = base + 1 if core_id < rem else base\n" + TASKS, "error"),
    "divmod unpacked the other way round": ("    rem, base = divmod(n_blocks, num_cores)\n"
                                            "    start = core_id * base + min(core_id, rem)\n"
                                            "    cnt = base + 1 if core_id < rem else base\n" + TASKS, None),
    "the end two blocks on": (BALANCED + "    end = (core_id + 2) * base + min(core_id + 2, rem)\n"
                                         "    for i in pl.range(start, end):\n", "error"),
    "the end by one more remainder": (BALANCED + "    end = (core_id + 1) * base + min(core_id + 1, rem + 1)\n"
                                                 "    for i in pl.range(start, end):\n", "error"),
    "the end one past the next start but on the last": (
        BALANCED + "    end = (core_id + 1) * base + min(core_id + 1, rem) + (1 if core_id < num_cores - 1 else 0)\n"
                   "    for i in pl.range(start, end):\n", "race"),
    "a loop from 0 to one past the end less the start": (_END + _FROM_0.replace("end - start", "end - start + 1"),
                                                         "error"),
    "a loop from 0 to the end less the block's start without the min": (
        _END + _FROM_0.replace("end - start", "end - core_id * base"), "error"),
    "the end less the start, the end one past the next start": (
        _LAST_END.replace("start + chunk\n", "start + chunk + 1\n") + _FROM_0, "race"),
    "the end less the start, the offset a task further": (_END + _FROM_0.replace("start + j", "start + j + 1"),
                                                          "error"),
    "one more up to rem itself, by core_id + 1 <= rem + 1": (
        BALANCED + "    cnt = base + 1 if core_id + 1 <= rem + 1 else base\n" + TASKS, "race"),
    "one more below rem - 1, by core_id + 2 <= rem": (BALANCED + "    cnt = base + 1 if core_id + 2 <= rem else base\n"
                                                      + TASKS, None),
    "the arms swapped by not": (BALANCED + "    cnt = base + 1 if not core_id < rem else base\n" + TASKS, "error"),
    "the first block takes the rest, by not core_id != 0": (
        LAST + "    cnt = n_blocks - start if not core_id != 0 else chunk\n" + TASKS, "race"),
    "the end as start + base + (core_id <= rem)": (BALANCED + "    end = start + base + (core_id <= rem)\n"
                                                              "    for i in pl.range(start, end):\n", "race"),
    "the end as start + start + base": (BALANCED + "    end = start + start + base\n"
                                                   "    for i in pl.range(start, end):\n", "error"),
    "one more as int of the test up to rem": (BALANCED + "    cnt = base + int(core_id <= rem)\n" + TASKS, "race"),
    "one more as the test times 2": (BALANCED + "    cnt = base + (core_id < rem) * 2\n" + TASKS, "error"),
    "a count by the block, the rows shared": ("    rem = n_blocks % num_cores\n"
                                              "    cnt = n_blocks if core_id < rem else 0\n"
                                              "    for i in pl.range(0, cnt):\n", None),
}


def _findings(text: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in transpile(text, path="k.py").diagnostics if d.severity != "note"]


@functools.lru_cache(maxsize=4)
def _generated(text: str) -> str | None:
    return transpile(text, path="k.py", _skip_rules=(codes.PIPELINE_NOT_PROVEN,)).code


def _verdicts(text: str, tiles: int, blocks: int) -> list[str]:
    code = _generated(text)
    rows = (32 * tiles, 32)
    return [row.verdict for row in verify(text, code, "tiled_scale_kernel", shapes={"a": rows, "out": rows},
                                          scalars={"scale": 0.5, "ApplyRelu": 1}, block_dim=blocks).rows]


#: launches (tiles, blocks) the two plain forms run at: every block one more, one block the
#: rest, a block with no tile; the other spellings of them at a remainder and an empty block
LAUNCHES = ((7, 2), (7, 3), (5, 4), (2, 3), (10, 4))
SPELLING_LAUNCHES = ((7, 3), (2, 3))


@pytest.mark.parametrize("name", spread(list(ACCEPTED), 10))  # every spelling in the campaign tier
def test_the_split_is_proven_and_runs_as_the_serial_kernel(name):
    text = edited(TILED, [(LOOP, ACCEPTED[name])])
    assert _findings(text) == []
    for tiles, blocks in LAUNCHES if name in ("balanced", "the last block takes the rest") else SPELLING_LAUNCHES:
        assert _verdicts(text, tiles, blocks) == ["ok", "ok"], (tiles, blocks)


@pytest.mark.parametrize("name", list(DEFECTS))
def test_a_defect_of_the_split_is_refused(name):
    ((code, _),) = _findings(edited(TILED, [(LOOP, DEFECTS[name][0])]))
    assert code == "PTO061"


@pytest.mark.parametrize("name", [n for n, (_, shown) in DEFECTS.items() if shown == "race"])
def test_the_emulator_shows_the_defects_race(name):
    text = edited(TILED, [(LOOP, DEFECTS[name][0])])
    assert any(_verdicts(text, tiles, 3)[0] == "race" for tiles in (7, 8))


_HALVED = ("    n_blocks = a.shape[0] // BLOCK\n", "    n_blocks = a.shape[0] // BLOCK // 2\n")
#: a probe's kernels, each accepted and racing at 7 tiles on 3 blocks: the choice took its operands
#: from a comparison inside its test (the last one evaluated) and its operator from the test
NESTED_TESTS = {
    "(core_id < num_cores - 1) < 1": LAST + "    cnt = chunk if (core_id < num_cores - 1) < 1 else n_blocks - start\n",
    "1 == (core_id < num_cores - 1)": LAST + "    cnt = n_blocks - start if 1 == (core_id < num_cores - 1) else "
                                             "chunk\n",
    "(core_id > rem) < 1": BALANCED + "    cnt = base + 1 if (core_id > rem) < 1 else base\n",
    "(core_id < rem) < 1": BALANCED + "    cnt = base + 1 if (core_id < rem) < 1 else base\n",
    "a nested choice": BALANCED + "    cnt = base + 1 if (1 if core_id < rem else 0) < 1 else base\n",
}


@pytest.mark.parametrize("name", list(NESTED_TESTS))
def test_a_choice_by_a_test_holding_another_comparison_is_refused(name):
    ((code, _),) = _findings(edited(TILED, [_HALVED, (LOOP, NESTED_TESTS[name] + TASKS)]))
    assert code == "PTO061"


def test_the_emulator_shows_a_choice_by_a_nested_test_races():
    text = edited(TILED, [_HALVED, (LOOP, NESTED_TESTS["(core_id < rem) < 1"] + TASKS)])
    assert _verdicts(text, 7, 3)[0] == "race"


DEMO = (Path(__file__).parents[2] / "examples" / "seed_demo.py").read_text()
_DEMO_BLOCKS = ("    # Cross-core shared buffers", "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                                                 "    num_cores = pl.get_block_num()\n    # Cross-core shared buffers")
_DEMO_LOOP = "    for ki in pl.range(0, N_ITER):\n"
#: the demo's N_ITER (4) tasks split over the blocks: a static count over a run-time block count
STATIC_SPLITS = {
    "chunks with a remainder": "    chunk = (N_ITER + num_cores - 1) // num_cores\n    start = core_id * chunk\n"
                               "    for j in pl.range(0, min(chunk, N_ITER - start)):\n        ki = start + j\n",
    "a balanced split": "    base = N_ITER // num_cores\n    rem = N_ITER % num_cores\n"
                        "    start = core_id * base + min(core_id, rem)\n"
                        "    cnt = base + 1 if core_id < rem else base\n"
                        "    for j in pl.range(0, cnt):\n        ki = start + j\n",
    # the only division by the block count inside `divmod`: a discovery run all the same
    "a balanced split by divmod": "    base, rem = divmod(N_ITER, num_cores)\n"
                                  "    start = core_id * base + min(core_id, rem)\n"
                                  "    cnt = base + 1 if core_id < rem else base\n"
                                  "    for j in pl.range(0, cnt):\n        ki = start + j\n",
}


@pytest.mark.parametrize("name", spread(list(STATIC_SPLITS), 2))  # every split in the campaign tier
def test_a_static_count_split_over_a_run_time_block_count_is_proven(name):
    # refused before: `(N + num_cores - 1) // num_cores` with `N` static was a value of its own at
    # block 0 of one block, and `core_id` times it no value the check could name
    text = edited(DEMO, [_DEMO_BLOCKS, (_DEMO_LOOP, STATIC_SPLITS[name])])
    assert _findings(text) == []
    code = transpile(text, path="k.py").code
    for blocks in (1, 2, 3, 5):
        assert [row.verdict for row in verify(text, code, "pipeline_demo_kernel", block_dim=blocks).rows] == \
            ["ok", "ok"], blocks
    defect = text.replace("min(chunk, N_ITER - start)", "min(chunk + 1, N_ITER - start)").replace(
        "base + 1 if core_id < rem", "base + 1 if core_id <= rem")
    ((code, _),) = _findings(defect)
    assert code == "PTO061"


def test_a_block_s_strided_share_of_a_static_count_names_the_count_it_shares():
    """`my_n = (N_ITER - core_id + num_cores - 1) // num_cores` of a static `N_ITER`: refused as
    counting to the block count, with the help to pass the block count as a parameter (probe h232).
    It names the share of a static count, and the count taken from a `pl.DYNAMIC` dimension."""
    share = ("    my_n = (N_ITER - core_id + num_cores - 1) // num_cores\n    for k in pl.range(0, my_n):\n"
             "        ki = core_id + k * num_cores\n")
    (error,) = [d for d in transpile(edited(DEMO, [_DEMO_BLOCKS, (_DEMO_LOOP, share)]), path="k.py").diagnostics
                if d.is_error]
    assert "a block's share of a static count" in error.message and "`pl.DYNAMIC` dimension" in error.message
    assert "the block count (`nb: pl.DT_INT32`" not in error.message


FIRST_TAKES_THE_REST = ("    chunk = n_blocks // num_cores\n    rem = n_blocks - chunk * num_cores\n"
                        "    if core_id == 0:\n        start = 0\n        cnt = chunk + rem\n"
                        "    else:\n        start = core_id * chunk + rem\n        cnt = chunk\n" + TASKS)


def test_the_first_block_taking_the_rest_is_refused_naming_the_forms_the_check_follows():
    """Valid, but no form the check follows (probe h88): the help said to offset the write by
    `start + j`, which the kernel did. It names the chunk starts the check follows; the last
    block taking the rest, one of them, is proven (ACCEPTED above)."""
    errors = [d for d in transpile(edited(TILED, [(LOOP, FIRST_TAKES_THE_REST)]), path="k.py").diagnostics
              if d.is_error]
    assert len(errors) == 1 and "the last block taking the rest" in errors[0].message, errors
    assert "`start = core_id * base + min(core_id, rem)`" in errors[0].message


def test_a_choice_by_the_block_reads_as_the_code_that_makes_it():
    """A refusal showed a balanced split's count as the check's own tuple (probe h239: `choose(<('lt',
    ('block', 'index'), ...)>, 1201 // num_cores + 1, 1201 // num_cores)`)."""
    from pto_transpile.soundness.values import origin_code

    count = ("block", "num_cores", 1, "count")
    base = ("op", "floordiv", 1201, count)
    choice = ("op", "choose", ("lt", ("block", "index"), ("op", "mod", 1201, count)), ("op", "add", base, 1), base)
    assert origin_code(choice) == "1201 // num_cores + 1 if core_id < 1201 % num_cores else 1201 // num_cores"
    assert origin_code(("op", "mul", choice, 2)) == \
        "(1201 // num_cores + 1 if core_id < 1201 % num_cores else 1201 // num_cores) * 2"
    last = ("op", "choose", ("lt", ("block", "index"), ("block", -1, "count")), base, 0)
    assert origin_code(last) == "1201 // num_cores if core_id < num_cores - 1 else 0"
