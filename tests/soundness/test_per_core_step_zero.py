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
