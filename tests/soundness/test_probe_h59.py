"""A probe (h59) of hand-written syncs found no kernel accepted and wrong, but a sync flagged on
`pl.PipeType.ALL` (the pipe barrier's "every pipe", no pipe a flag is set on) crashed the check
with an internal error, in a hand-pipelined kernel and in a stage of a generated one. It is a
diagnostic now that names the pipes a flag can use."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import edited
from pto_transpile import transpile

EXAMPLES = Path(__file__).parents[2] / "examples"
HAND = edited((EXAMPLES / "hand_pipelined.py").read_text(), [(
    "pl.system.set_cross_core(pipe=pl.PipeType.V, event_id=EV_FREE[(t - 1) % 2])",
    "pl.system.set_cross_core(pipe=pl.PipeType.ALL, event_id=EV_FREE[(t - 1) % 2])")])
STAGE = edited((EXAMPLES / "tiled_scale.py").read_text(), [(
    "    epilogue(res, proj, scale)\n",
    "    epilogue(res, proj, scale)\n"
    "    pl.system.sync_src(set_pipe=pl.PipeType.ALL, wait_pipe=pl.PipeType.MTE3, event_id=0)\n"
    "    pl.system.sync_dst(set_pipe=pl.PipeType.ALL, wait_pipe=pl.PipeType.MTE3, event_id=0)\n")])


@pytest.mark.parametrize("name, text, code", [("hand", HAND, "PTO077"), ("stage", STAGE, "PTO061")])
def test_a_sync_on_every_pipe_is_a_diagnostic(name, text, code):
    found = [d for d in transpile(text, path=f"{name}.py", preload=1).diagnostics if d.severity != "note"]
    assert [d.code for d in found] == [code], [str(d) for d in found]
    assert "`pl.PipeType.ALL` is not a pipe a sync flag is set or waited on" in found[0].message


@pytest.mark.parametrize("name, text", [("hand", HAND), ("stage", STAGE)])
def test_naming_a_pipe_it_lists_fixes_it(name, text):
    # the message names the pipes a flag can use: the vector core's own, V, is one
    fixed = text.replace("pl.PipeType.ALL", "pl.PipeType.V")
    assert [d.code for d in transpile(fixed, path=f"{name}.py", preload=1).diagnostics if d.severity != "note"] == []
