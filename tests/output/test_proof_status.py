"""The status line a long proof shows on a terminal (`output/proof_status.py`), and what the
proof reports to it (`soundness/progress.py`)."""

from __future__ import annotations

import io
from pathlib import Path

from pto_transpile import transpile
from pto_transpile.output.proof_status import DELAY, INTERVAL, ProofStatus, status_for
from pto_transpile.soundness import progress

KERNELS = Path(__file__).parents[1] / "soundness" / "kernels"


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_appears_after_the_delay_is_rate_limited_and_is_erased_at_the_end():
    out, clock = io.StringIO(), _Clock()
    line = ProofStatus(out, clock)
    line("k", 1, 10)
    assert out.getvalue() == ""  # a proof that ends within the delay shows nothing
    clock.now += DELAY
    line("k", 2, 10)
    assert out.getvalue() == "\rproving `k`: 2 of 10 runs judged"
    clock.now += INTERVAL / 2
    line("k", 3, 10)
    assert out.getvalue().count("\r") == 1  # too soon: not rewritten
    clock.now += INTERVAL
    line("k", 4, 10)
    assert out.getvalue().endswith("\rproving `k`: 4 of 10 runs judged")
    line("k", 10, 10)
    width = len("proving `k`: 4 of 10 runs judged")
    assert out.getvalue().endswith("\r" + " " * width + "\r")
    assert line.shown == 0


def test_a_quick_proof_shows_nothing_and_a_pipe_gets_no_line():
    out, clock = io.StringIO(), _Clock()
    line = ProofStatus(out, clock)
    for judged in range(1, 6):
        line("k", judged, 5)
    assert out.getvalue() == ""
    assert status_for(io.StringIO()) is None


def test_a_proof_of_many_runs_reports_each_run_and_its_end():
    calls: list[tuple[str, int, int]] = []
    with progress.listening(lambda *call: calls.append(call)):
        result = transpile((KERNELS / "trip_param.py").read_text(), path="trip_param.py")
    assert result.code is not None
    kernels = {k for k, _, _ in calls}
    assert kernels == {"kernel"}, kernels
    judged = [j for _, j, runs in calls if j < runs]
    assert judged == sorted(judged) and judged[0] >= 1, judged
    total = calls[0][2]
    assert total >= 13 and judged[-1] == total - 1, (total, judged[-1])  # every run for every trip count
    assert calls[-1][1] == calls[-1][2]  # the end


def test_nothing_is_reported_without_a_listener():
    progress.report("k", 1, 2)  # no listener: a no-op
    calls: list = []
    with progress.listening(lambda *call: calls.append(call)):
        progress.report("k", 1, 2)
    progress.report("k", 2, 2)
    assert calls == [("k", 1, 2)]
