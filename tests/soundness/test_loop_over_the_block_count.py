"""A loop to the block count (`for b in pl.range(0, num_cores)`, block 0 adding the blocks' partials
after `sync_all`): refused, as the check follows the block count as a per-core range's step and not
as a trip count, but the message said the count was no run-time size (probe h213). It names the
block count now, with the forms that are proven: a scalar parameter for the count (accepted and
verified on 3 blocks), or an atomic store of each block's part."""

from __future__ import annotations

from test_pipe_syncs_under_a_block_test import KERNEL as UNDER_A_TEST
from test_pipe_syncs_under_a_block_test import SPLIT, UNDER

from helpers import edited, error_messages
from pto_transpile import transpile
from sim_runtime import verify

#: the pairs of syncs outside the test of the block index, the loop to the block count
KERNEL = edited(UNDER_A_TEST, [(UNDER, SPLIT.replace("pl.range(0, nb)", "pl.range(0, num_cores)")),
                               ("    nb: pl.DT_INT32,\n", "")])
LOOP = "        for b in pl.range(0, num_cores):\n"


def test_the_block_count_is_named_as_such():
    found = [d for d in transpile(KERNEL, path="k.py").diagnostics if d.is_error]
    assert len(found) == 1, found
    assert ("`pl.range(0, num_cores)` counts to the block count (or a value computed from it), which the check "
            "follows as the step of a per-core range, not as a trip count") in found[0].message, found[0].message
    assert "loop to a scalar parameter the host passes as the block count" in found[0].message
    assert found[0].line == KERNEL[:KERNEL.index(LOOP)].count("\n") + 1


def test_the_count_as_a_parameter_is_proven_and_verified():
    text = edited(UNDER_A_TEST, [(UNDER, SPLIT)])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    report = verify(text, result.code, "kernel", shapes={"a": (224, 32), "out": (224, 32), "ws": (96, 32)},
                    scalars={"nb": 3}, block_dim=3)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows
