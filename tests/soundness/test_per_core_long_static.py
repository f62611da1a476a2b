"""A per-core range over a long static count, proven at representative counts (probe h237): the
one representative of the whole count stood for block 0 of one block, while on a launch each block
runs its share, every count from 0 to the whole. A defect at a share of another residue, of one
task, or of none, was accepted, and raced or computed other outputs at 2 to 5 blocks. Each share
is proven now at its own representative."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNELS = Path(__file__).parent / "kernels"


def _kernel(name: str) -> str:
    return kernel_text(KERNELS / f"{name}.py")


@pytest.mark.parametrize(("name", "code", "share"), [
    # a short per-core range (4 tasks) in a long static outer loop (1,100 rows): one task at 3 blocks
    ("h237_inner_per_core_in_long_outer", "PTO061", "a block's share of 1 of its 4 tasks"),
    # a counter of a block's tasks across rows: the residue of a block's share of 1,201 tasks
    ("h237_tick_share_residue", "PTO061", "of its 1201 tasks"),
    # a drain written for an even share, pipelined by hand over 3,002 tasks
    ("h237_hand_per_core_long_static", "PTO068", "of its 3002 tasks"),
])
def test_a_defect_at_a_block_s_share_is_refused(name, code, share):
    found = [d for d in transpile(_kernel(name), path=f"{name}.py").diagnostics if d.severity == "error"]
    assert [d.code for d in found] == [code], found
    assert share in found[0].message, found[0].message


def test_the_emulator_shows_the_share_defect():
    """The first kernel, its outer loop shortened (the defect is every row's): forced through, the
    outputs differ at 3 blocks, where a block runs one of the 4 tasks, and not on one block."""
    text = edited(_kernel("h237_inner_per_core_in_long_outer"), [("\nM = 1100\n", "\nM = 3\n")])
    code = transpile(text, path="k.py", _skip_rules=["PTO061"]).code
    verdicts = {blocks: verify(text, code, "kernel", path="k.py", block_dim=blocks).rows[-1].verdict
                for blocks in (1, 3)}
    assert verdicts == {1: "ok", 3: "mismatch"}, verdicts
