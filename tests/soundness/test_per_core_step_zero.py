"""A per-core range whose step is 0 on some block count is named for that count (probe h73).
Before, `pl.range(core_id, n_blocks, num_cores - 1)` was refused with a bare "`pl.range` with
step 0" under the generic hint; every other misuse of a per-core range says what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import codes, transpile

BASE = (Path(__file__).parent / "kernels" / "rows_two_stages.py").read_text(encoding="utf-8")
BOUNDS = "    n_blocks = a.shape[0] // BLOCK\n"
CORES = BOUNDS + "    core_id = pl.get_block_idx() // pl.get_subblock_num()\n    num_cores = pl.get_block_num()\n"
LOOP = "    for i in pl.range(0, n_blocks):\n"
HINT = ("Step a per-core range by the block count, as `pl.range(core_id, n, num_cores)` with `num_cores = "
        "pl.get_block_num()` does")


def _stepping(step: str) -> str:
    return edited(BASE, [(BOUNDS, CORES), (LOOP, f"    for i in pl.range(core_id, n_blocks, {step}):\n")])


@pytest.mark.parametrize(("step", "when"), [
    ("num_cores - 1", "when the kernel runs on 1 block (`pl.get_block_num()` = 1)"),
    ("2 * num_cores - 2", "when the kernel runs on 1 block (`pl.get_block_num()` = 1)"),
    ("num_cores // 2", "when the kernel runs on 1 block"),
    ("core_id", "on block 0 when the kernel runs on 1 block"),
])
def test_a_step_zero_on_one_block_is_named_with_the_block_count_that_makes_it(step, when):
    text = _stepping(step)
    [d] = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert d.code == codes.PIPELINE_NOT_PROVEN
    assert d.message.endswith(f"`pl.range(core_id, n_blocks, {step})` steps by `{step}`, which is 0 {when}, "
                              "and a range cannot step by 0"), d.message
    assert d.hint.startswith(HINT), d.hint
    assert d.line == text.splitlines().index(f"    for i in pl.range(core_id, n_blocks, {step}):") + 1


def test_the_step_the_hint_names_is_accepted():
    result = transpile(_stepping("num_cores"), path="k.py")
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None


def test_a_step_zero_the_block_count_does_not_explain_names_the_run_and_the_step_hint():
    """`max(num_cores - 1, 0)` is a plain 0 at one block, no form of the block count: the message
    names the run the check followed, and the help is about the step, not about how the check
    follows Python (probe h75; before, the generic "write it in a form it follows" help)."""
    text = _stepping("max(num_cores - 1, 0)")
    [d] = [d for d in transpile(text, path="k.py").diagnostics if d.is_error]
    assert d.message.endswith("steps by `max(num_cores - 1, 0)`, which is 0 in a run the check follows (1 block), "
                              "and a range cannot step by 0"), d.message
    assert d.hint.startswith("Compute the step of a `pl.range` so that it is at least 1 for every block count"), d.hint
    result = transpile(_stepping("num_cores"), path="k.py")  # the hint's example
    assert [d.message for d in result.diagnostics if d.is_error] == [] and result.code is not None
