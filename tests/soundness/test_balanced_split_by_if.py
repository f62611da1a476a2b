"""A balanced split of the tiles over the blocks whose end an `if` on the block index raises
(`end = start + base` then `if core_id < rem: end = end + 1`): refused as reaching past its block's
chunk (probe h208), while the same end written `start + base + (1 if core_id < rem else 0)` was
accepted. An arm that adds a constant to the value the name had is that value plus the choice
between the constants now; an arm adding another constant still makes blocks overlap, refused. The
same end raised for every block and lowered past the remainder (probe h216) is that choice too."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "balanced_split_if.py")
IF = "    if core_id < rem:\n        end = end + 1\n"


def _run(text: str, tiles: int, blocks: int) -> list[str]:
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    shape = (32 * tiles, 32)
    report = verify(text, result.code, "kernel", shapes={"a": shape, "out": shape}, scalars={"d": 3}, block_dim=blocks)
    return [r.verdict for r in report.rows]


@pytest.mark.parametrize(("tiles", "blocks"), [(7, 1), (7, 2), (7, 3), (7, 4), (1, 2)])
def test_the_end_raised_by_an_if_is_proven_and_verified(tiles, blocks):
    assert _run(KERNEL, tiles, blocks) == ["ok", "ok"]


@pytest.mark.parametrize("written", ["    if core_id < rem:\n        end += 1\n",
                                     "    if rem > core_id:\n        end = 1 + end\n",
                                     "    if core_id >= rem:\n        pass\n    else:\n        end = end + 1\n",
                                     # the end computed again from a count raised in the arm (probe h214)
                                     "    if core_id < rem:\n        base = base + 1\n        end = start + base\n",
                                     # a tuple target in the arm (probe h220: the arm was not followed)
                                     "    if core_id < rem:\n        end, start = end + 1, start\n"])
def test_other_spellings_of_the_same_end_are_proven(written):
    assert _run(edited(KERNEL, [(IF, written)]), 5, 3) == ["ok", "ok"]


RAISED = "    end = start + base\n" + IF


@pytest.mark.parametrize("written", ["    end = start + base + 1\n    if core_id >= rem:\n        end = end - 1\n",
                                     "    end = start + base + 1\n    if rem <= core_id:\n        end -= 1\n",
                                     # the start moved by one first (probe h229: "bounds not integers")
                                     "    end = start + 1 + base\n    if core_id >= rem:\n        end = end - 1\n",
                                     "    end = start + 1\n    end = end + base\n    if core_id >= rem:\n"
                                     "        end -= 1\n"])
@pytest.mark.parametrize(("tiles", "blocks"), [(7, 3), (1, 2)])
def test_the_end_lowered_by_an_if_is_proven_and_verified(written, tiles, blocks):
    """One more for every block, then one less on the blocks past the remainder (probe h216: refused
    as reaching past the block's chunk, `(x + 1) - 1` not read as `x`)."""
    assert _run(edited(KERNEL, [(RAISED, written)]), tiles, blocks) == ["ok", "ok"]


SPLIT = "    start = core_id * base + pl.min(core_id, rem)\n" + RAISED


def _arms(end_below: str, end_rest: str, start_rest: str = "core_id * base + rem") -> str:
    """The split as an `if` whose arms each bind the start and the end."""
    return (f"    if core_id < rem:\n        start = core_id * (base + 1)\n        end = {end_below}\n"
            f"    else:\n        start = {start_rest}\n        end = {end_rest}\n")


@pytest.mark.parametrize("written", [_arms("start + base + 1", "start + base"),
                                     _arms("base + start + 1", "base + start")])
@pytest.mark.parametrize(("tiles", "blocks"), [(7, 3), (1, 2)])
def test_each_arm_binding_its_start_and_end_is_proven_and_verified(written, tiles, blocks):
    """Each arm's end is its start plus the block's length (probe h220: refused as reaching past
    the block's chunk, the end a choice between two whole sums)."""
    assert _run(edited(KERNEL, [(SPLIT, written)]), tiles, blocks) == ["ok", "ok"]


@pytest.mark.parametrize("complement", ["elif core_id >= rem:", "elif rem <= core_id:", "elif not core_id < rem:"])
@pytest.mark.parametrize(("tiles", "blocks"), [(7, 3), (7, 4), (1, 2)])
def test_the_arms_with_the_complement_as_elif_are_proven_and_verified(complement, tiles, blocks):
    """`elif` with the test that holds exactly where the `if`'s does not is the `else` (probe h229:
    refused as a name rebound under a test, without naming the `elif`)."""
    written = _arms("start + base + 1", "start + base").replace("else:", complement)
    assert _run(edited(KERNEL, [(SPLIT, written)]), tiles, blocks) == ["ok", "ok"]


def test_an_elif_that_is_not_the_complement_is_not_taken_for_the_else():
    """`elif core_id > rem:` leaves block `rem` with the values bound before: not a choice between the
    two arms, refused (block `rem` would be modelled as running the `elif` arm)."""
    written = "    start = 0\n    end = 0\n" + _arms("start + base + 1", "start + base").replace(
        "else:", "elif core_id > rem:")
    messages = error_messages(transpile(edited(KERNEL, [(SPLIT, written)]), path="k.py"))
    assert any("rebinds" in m and "an `elif` after it is read as its `else` only" in m for m in messages), messages


def test_an_elif_test_that_binds_a_name_is_not_taken_for_the_else():
    """`elif core_id + (pad := 1) > rem:` is the complement, but evaluating it bound `pad` for the
    `if`'s arm too, which read 1 where Python reads 2, and blocks overlapping by a tile were accepted
    (probe h235, racing at 3 blocks)."""
    written = ("    pad = 2\n" + _arms("start + base + pad", "start + base")
               .replace("else:", "elif core_id + (pad := 1) > rem:"))
    assert error_messages(transpile(edited(KERNEL, [(SPLIT, written)]), path="k.py"))


FLOAT_MODE = ("    r = f\n    mode = 0\n    if core_id <= r - 1:\n        mode = 1\n"
              "    elif core_id >= r:\n        mode = 1\n"
              "    for ki in pl.range(core_id * mode, n_tiles, num_cores):\n")


def test_a_choice_by_a_float_is_not_read_as_one_by_a_whole_number():
    """`core_id <= f - 1` is `core_id < f` for whole numbers only (f = 2.5: block 2 passes neither
    test of the `elif` form), and no test of NaN holds: with the `elif`, accepted and racing at 3
    blocks (probe h235). A block-index test against a float chooses nothing the check follows."""
    text = edited(KERNEL, [("    d: pl.DT_INT32,\n", "    d: pl.DT_INT32,\n    f: pl.DT_FP32,\n"),
                           (SPLIT + "    for ki in pl.range(start, end):\n", FLOAT_MODE)])
    assert error_messages(transpile(text, path="k.py"))


@pytest.mark.parametrize("written", [_arms("start + base + 2", "start + base"),
                                     _arms("start + base + 1", "start + base + 1"),
                                     _arms("start + base", "start + base + 1"),
                                     _arms("start + base + 1", "start + 2 * base")])
def test_arms_whose_ends_make_blocks_overlap_are_refused(written):
    messages = error_messages(transpile(edited(KERNEL, [(SPLIT, written)]), path="k.py"))
    assert any("reaches past its block's own chunk" in m for m in messages), messages


@pytest.mark.parametrize(("old", "new"), [
    (IF, "    if core_id < rem:\n        end += 2\n"),
    (IF, "    if core_id <= rem:\n        end = end + 1\n"),
    (IF, "    if core_id < rem:\n        end = end + 1\n    else:\n        end = end - 1\n"),
    ("start = core_id * base + pl.min(core_id, rem)", "start = core_id * base"),
    (RAISED, "    end = start + base + 2\n    if core_id >= rem:\n        end = end - 1\n"),
    (RAISED, "    end = start + base + 1\n    if core_id >= rem - 1:\n        end = end - 1\n"),
    (RAISED, "    end = start + 1 + base\n"),
    (RAISED, "    end = start + 2 + base\n    if core_id >= rem:\n        end = end - 1\n"),
    (RAISED, "    end = start + 1\n    end = end + base\n    if core_id >= rem - 1:\n        end -= 1\n"),
])
def test_blocks_that_overlap_are_refused(old, new):
    messages = error_messages(transpile(edited(KERNEL, [(old, new)]), path="k.py"))
    assert any("reaches past its block's own chunk" in m for m in messages), messages
