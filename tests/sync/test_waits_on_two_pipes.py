"""One core's waits on one event id on two pipes (probe h140).

A vector stage reads a handed tile on V in one branch and on MTE3 in the other, so the sync graph
gives it a wait on each pipe for the slot's forward event. Each pipe runs its waits when it
reaches them, and the counter of an id gives a set to whichever wait runs first: a later task's
V wait could take the set raised for an earlier task's MTE3 wait while MTE3 is busy, and read the
slot before the cube has written it. The check and the emulator matched waits to sets in program
order and accepted the kernel. Now the transform puts such waits on the scalar pipe (which holds
back all of the core's later work, and runs its waits in program order), and the check and the
emulator each refuse waits on one id on two pipes of a core.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import kernel_text
from pto_transpile import transpile
from pto_transpile.sync import plan
from sim_runtime import verify

KERNEL = kernel_text(Path(__file__).parent / "kernels" / "h140_waits_on_two_pipes.py")


def _waits_on(code: str, pipe: str) -> bool:
    """Does `code` wait for the handed slot's forward event on `pipe`?"""
    return re.search(rf"wait_cross_core\(\s*pipe=pl\.PipeType\.{pipe},\s*event_id=_pl_fwd_ids_c_vec_db\[", code) \
        is not None


def _shapes(rows: int) -> dict:
    return {"a": (rows, 32), "out": (rows, 32), "side": (rows, 256)}


@pytest.mark.parametrize("preload", [1, 2])
def test_the_waits_go_on_the_scalar_pipe_and_the_kernel_runs_as_the_serial_one(preload):
    result = transpile(KERNEL, path="k.py", preload=preload)
    assert result.ok, [d.message for d in result.diagnostics]
    assert _waits_on(result.code, "S") and not _waits_on(result.code, "V") and not _waits_on(result.code, "MTE3")
    for rows, mode in ((192, 1), (96, 5)):
        report = verify(KERNEL, result.code, "kernel", path="k.py", shapes=_shapes(rows), scalars={"mode": mode})
        assert [r.verdict for r in report.rows] == ["ok", "ok"], report.rows[-1].message


def test_waits_on_two_pipes_are_refused_by_the_check_and_the_emulator(monkeypatch):
    """With the waits left on V and MTE3 (as the transform wrote them), the check names the two
    pipes, and the emulator's run of that output is a race, not "ok"."""
    monkeypatch.setattr(plan, "_one_wait_pipe", lambda _plan: None)
    refused = transpile(KERNEL, path="k.py", preload=1)
    errors = [d for d in refused.diagnostics if d.is_error]
    assert len(errors) == 1 and "AIV0 waits for event id 0 on two pipes (V) (MTE3)" in errors[0].message, \
        [d.message for d in errors]
    assert "wait on the scalar pipe" in errors[0].hint
    written = transpile(KERNEL, path="k.py", preload=1, _skip_rules={"PTO061"})
    assert _waits_on(written.code, "V") and _waits_on(written.code, "MTE3")
    report = verify(KERNEL, written.code, "kernel", path="k.py", shapes=_shapes(192), scalars={"mode": 1})
    assert [r.verdict for r in report.rows] == ["ok", "race"]
    assert "b0.AIV0 waits for event id 0 on pipe V" in report.rows[-1].message
