"""`ki & m` with `m` a number of no sign bit (a ping-pong buffer's `ki & 1`) is `(ki % 2**k) & m`,
a residue of the loop variable of period `2**k` (`k` the bits of `m`): it was refused as "neither
affine nor periodic". It is judged as `ki % 2**k` is now: proven where it is periodic, and a
defect at one residue of the period is still found (`test_residue_functions.py`)."""

from __future__ import annotations

import pytest
from probed import kernel

from helpers import error_messages
from pto_transpile import transpile

#: the vector stage of tests/soundness/kernels/dynamic_rows.py scaling by a mask of the loop variable
PING_PONG = ("    pl.relu(y, c_vec)\n", "    if (ki & 1) == 1:\n        pl.relu(y, c_vec)\n"
                                      "    else:\n        pl.muls(y, c_vec, 2.0)\n")


@pytest.mark.parametrize("mask", ["ki & 1", "1 & ki", "ki & 3", "ki & True", "ki & 0"])
def test_a_mask_of_the_loop_variable_is_proven(mask):
    text = kernel("dynamic_rows.py").replace(*PING_PONG).replace("(ki & 1)", f"({mask})")
    for preload in (1, 2):
        result = transpile(text, path="k.py", preload=preload)
        assert result.ok, (mask, preload, error_messages(result))


def test_a_mask_of_a_per_core_loop_variable_is_refused_as_its_residue_is():
    text = kernel("dynamic_rows.py").replace(*PING_PONG)
    text = text.replace("    n_tiles = a.shape[0] // TILE\n    for ki in pl.range(0, n_tiles):\n",
                        "    n_tiles = a.shape[0] // TILE\n    core_id = pl.get_block_idx() // pl.get_subblock_num()\n"
                        "    num_cores = pl.get_block_num()\n    for ki in pl.range(core_id, n_tiles, num_cores):\n")
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "the variable of a per-core range" in errors[0], errors


def test_a_negative_mask_is_not_a_residue():
    # `ki & -2` is `ki - ki % 2`: it grows with the loop variable
    text = kernel("dynamic_rows.py").replace(*PING_PONG).replace("(ki & 1) == 1", "(ki & -2) == 4")
    errors = error_messages(transpile(text, path="k.py", preload=1))
    assert errors and "neither affine nor periodic" in errors[0], errors
