"""The runs of a long proof judged on worker processes: the same verdict, the same message."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import judged_runs
from pto_transpile import transpile
from pto_transpile.soundness import parallel

KERNELS = Path(__file__).parent / "kernels"


def _diagnostics(name: str) -> list[tuple]:
    result = transpile((KERNELS / name).read_text(), path=name)
    return [(d.code, d.line, d.column, d.message) for d in result.diagnostics]


@pytest.mark.parametrize("name", ["trip_param.py", "residue_defect.py", "branch_on_param.py", "dynamic_rows.py"])
def test_a_proof_on_workers_says_what_the_proof_here_says(name, monkeypatch):
    runs = judged_runs(monkeypatch)
    alone = _diagnostics(name)
    sequential = len(runs)
    monkeypatch.setattr(parallel, "JOBS", 2)
    monkeypatch.setattr(parallel, "MIN_RUNS", 2)
    runs.clear()
    assert _diagnostics(name) == alone
    # what passed on a worker is not run again here; a refusal's first failing run is
    assert len(runs) < sequential and (runs != []) == any(code == "PTO061" for code, *_ in alone), runs


def test_an_accepted_proof_on_workers_runs_nothing_here(monkeypatch):
    here = judged_runs(monkeypatch)
    monkeypatch.setattr(parallel, "JOBS", 2)
    monkeypatch.setattr(parallel, "MIN_RUNS", 2)
    result = transpile((KERNELS / "trip_param.py").read_text(), path="trip_param.py")
    assert result.code is not None and here == []


def test_no_worker_is_started_by_default():
    assert parallel.JOBS == 1 and parallel.usable() == 1


@pytest.mark.parametrize("jobs, here", [("2", 0), ("1", None)])
def test_the_command_judges_the_runs_of_one_file_on_its_jobs(jobs, here, monkeypatch, tmp_path):
    from click.testing import CliRunner

    from pto_transpile.cli import main

    runs = judged_runs(monkeypatch)
    monkeypatch.setattr(parallel, "MIN_RUNS", 2)
    result = CliRunner().invoke(main, [str(KERNELS / "trip_param.py"), "-j", jobs, "-o", str(tmp_path / "out.py")],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert (len(runs) == here) if here is not None else len(runs) > 2, len(runs)
    assert parallel.JOBS == 1  # as it was before the command


def test_a_process_forked_from_the_command_judges_its_runs_alone():
    # the workers of a many-file command are forked with the command's setting: they must
    # not each start as many workers again
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with parallel.proof_jobs(4):
        assert parallel.usable() == 4
        # as output/files.py starts them: not daemonic
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
            assert pool.submit(parallel.usable).result() == 1
    assert parallel.usable() == 1
