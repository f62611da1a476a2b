"""PTO065 reads what a plain helper of the file does to a tile, in the order of its calls: the seed
demo's cube stages moving into `left` and `right` and multiplying into `acc` through `mm_tile`
were said to read `acc` before writing it (probe h188), although the helper writes it first and
the kernel runs as the serial one on the emulator."""

import pytest

from helpers import demo_text, edited
from pto_transpile import codes, transpile

MM_TILE = '''def mm_tile(acc, left, right, lhs_src, rhs_src):
    """L1 -> L0 moves and one matmul."""
    BODY


@pl.pipeline.stage
def stage1('''
WRITES = "pl.move(left, lhs_src)\n    pl.move(right, rhs_src)\n    pl.matmul(acc, left, right)"


def _helped(body: str = WRITES) -> str:
    return edited(demo_text(), [
        ("@pl.pipeline.stage\ndef stage1(", MM_TILE.replace("BODY", body)),
        ("    pl.move(left, cur_a)\n    pl.move(right, b_slot)\n    pl.matmul(acc, left, right)\n",
         "    mm_tile(acc, left, right, cur_a, b_slot)\n"),
        ("    pl.move(left, p_mat)\n    pl.move(right, d_slot)\n    pl.matmul(acc, left, right)\n",
         "    mm_tile(acc, left, right, p_mat, d_slot)\n"),
    ])


def _codes(text: str) -> list[str]:
    return [d.code for d in transpile(text, preload=1).diagnostics if d.severity == "error"]


def test_a_helper_writing_the_tiles_first_is_a_write():
    assert _codes(_helped()) == []


@pytest.mark.parametrize("body", [
    # the matmul under a test: `acc` may keep what an earlier iteration left
    "pl.move(left, lhs_src)\n    pl.move(right, rhs_src)\n    if lhs_src is not None:\n"
    "        pl.matmul(acc, left, right)",
    # `acc` bound again in the helper: the tile written is another
    "pl.move(left, lhs_src)\n    pl.move(right, rhs_src)\n    acc = left\n    pl.matmul(acc, left, right)",
])
def test_a_helper_that_may_not_write_the_tile_is_no_write(body):
    assert codes.TILE_STATE_ACROSS_ITERATIONS in _codes(_helped(body)), body
