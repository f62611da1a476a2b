"""Probe h87's holes: kernels `--check` accepted whose pipelined run raced on the emulator while
the serial run was ok.

A value of a loop's variable kept in an entry of the author's own `pl.struct_array`
(`ring[0].row = k + 1`) was left as it was at the loop's end: such a list was taken for a ctx
ring, whose values a drain reads. Read after the loop, `row % 16` passed for a residue of a loop
variable and the class `n % 16 == 15` was not run past the bound (the race needs n = 31). Every
container is now rebound (`Loops._values_after`); the generated kernel's ring is its own `_pl_`
names, which are left as they are.
"""

from __future__ import annotations

from test_probe_h86 import FLAG, HARMLESS, RACE, _flagged

from helpers import edited, error_messages
from pto_transpile import transpile

IN_RING = _flagged("    ring = pl.struct_array(2, \"Beat\", row=0)\n    for _k in pl.range(0, n_blocks):\n"
                   "        ring[0].row = _k + 1\n    q = ring[0].row\n" + FLAG)


def test_a_value_left_in_the_authors_struct_array_is_one_of_the_count():
    [error] = error_messages(transpile(IN_RING, path="k.py", preload=1))
    assert RACE in error, error
    assert error_messages(transpile(edited(IN_RING, [HARMLESS]), path="k.py", preload=1)) == []
