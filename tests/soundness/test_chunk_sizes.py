"""The chunk size of contiguous chunks per block must be one number on every block: computed from
tensor shapes, the block count, numbers, and GM elements named by numbers (`tbl[0]`) while no
block writes them. Rules elsewhere refuse a write of such an element that a kernel's blocks race
on between two barriers; this one backs them for writes no other rule places (an atomic add of
every block), at the cost of refusing a write after a barrier. Unit tests of `Uniform`."""

from __future__ import annotations

from pto_transpile.soundness.uniform import BLOCK, Uniform
from pto_transpile.soundness.values import Opaque, Sym

COUNT = ("read", "GM", ("code", "pl.getval(tbl, 0)", 0), ("at", "tbl", (0,)))
BLOCKS = ("block", "num_cores", 1, "count")


def _chunked(count: tuple) -> Uniform:
    """A run whose block starts at `core_id * ((count + num_cores - 1) // num_cores)`."""
    uni = Uniform()
    size = Opaque(("op", "floordiv", ("op", "sub", ("op", "add", count, BLOCKS), 1), BLOCKS))
    start = uni.opaque_chunk(Sym(0, ((BLOCK, 1),)), size, Opaque(("op", "mul", ("block", "core_id", 0, "index"),
                                                                    size.origin)))
    assert start is not None, "a count read by numbers is the same on every block"
    uni.spread = True
    return uni


def test_a_chunk_of_a_count_read_from_gm_stands_while_no_block_writes_the_count():
    uni = _chunked(COUNT)
    assert uni.unplaced() is None
    uni.written.add(("out", 0))
    assert uni.unplaced() is None
    uni.written.add(("tbl", 1))
    refusal = uni.unplaced()
    assert refusal is not None and "chunk size is read from `tbl`, which the kernel writes" in refusal.what


def test_a_count_read_at_a_place_of_the_block_is_no_chunk_size():
    uni = Uniform()
    size = Opaque(("op", "floordiv", (*COUNT, "per block"), BLOCKS))
    assert uni.opaque_chunk(Sym(0, ((BLOCK, 1),)), size, size) is None
