"""A `sync_src`/`sync_dst` pair under `if core_id == 0:` (block 0 adding the blocks' partials after
`sync_all`): refused, as the check cannot tell where such a test holds, but helped with counting
a block's tasks from 0, which code with no per-core tasks cannot do (probe h213). A pair of one
core's pipes orders that core's ops wherever it runs, as a pipe barrier does; the help says to split
the branch around it, and that kernel is accepted and verified on 3 blocks."""

from __future__ import annotations

from pathlib import Path

from helpers import edited, error_messages, kernel_text
from pto_transpile import transpile
from sim_runtime import verify

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "block_reduce_pipe_syncs.py")
MTE2_V = "pl.system.sync_{}(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)"
V_MTE2 = "pl.system.sync_{}(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE2, event_id=1)"
V_MTE3 = "pl.system.sync_{}(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=2)"
UNDER = f"""        if core_id == 0:
            pl.full(sumt, 0.0)
            for b in pl.range(0, nb):
                pl.load(part, ws, [b * TILE + sub_id * HALF, 0])
                {MTE2_V.format("src")}
                {MTE2_V.format("dst")}
                pl.add(sumt, sumt, part)
                {V_MTE2.format("src")}
                {V_MTE2.format("dst")}
            {V_MTE3.format("src")}
            {V_MTE3.format("dst")}
            pl.store(total, sumt, [sub_id * HALF, 0])
"""
SPLIT = f"""        if core_id == 0:
            pl.full(sumt, 0.0)
        for b in pl.range(0, nb):
            if core_id == 0:
                pl.load(part, ws, [b * TILE + sub_id * HALF, 0])
            {MTE2_V.format("src")}
            {MTE2_V.format("dst")}
            if core_id == 0:
                pl.add(sumt, sumt, part)
            {V_MTE2.format("src")}
            {V_MTE2.format("dst")}
        {V_MTE3.format("src")}
        {V_MTE3.format("dst")}
        if core_id == 0:
            pl.store(total, sumt, [sub_id * HALF, 0])
"""


def test_a_pipe_sync_pair_under_a_block_test_gets_the_split_help():
    found = [d for d in transpile(KERNEL, path="k.py").diagnostics if d.is_error]
    assert len(found) == 1, found
    assert "is under `if core_id == 0:`, a test the check cannot decide" in found[0].message, found[0].message
    assert found[0].hint.startswith("Put the `sync_src`/`sync_dst` pair outside the test, splitting the branch"), \
        found[0].hint


def test_the_branch_split_around_the_pairs_is_proven_and_verified():
    text = edited(KERNEL, [(UNDER, SPLIT)])
    result = transpile(text, path="k.py")
    assert error_messages(result) == []
    shapes = {"a": (224, 32), "out": (224, 32), "ws": (96, 32)}
    report = verify(text, result.code, "kernel", shapes=shapes, scalars={"nb": 3}, block_dim=3)
    assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows
