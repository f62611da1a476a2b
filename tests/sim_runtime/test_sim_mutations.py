"""Mutation tests: every damaged sync in the generated demo must be reported, never pass."""

import re
from pathlib import Path

import numpy as np
import pytest

from helpers import spread
from sim_runtime import DeadlockError, RaceError, SimulationError, SyncBalanceError, run_kernel

pytestmark = pytest.mark.emulator

KERNELS = Path(__file__).parent.parent / "sim_kernels"
NAME = "pipeline_demo_kernel"
P2 = (KERNELS / "demo_p2.py").read_text().splitlines(keepends=True)
SYNC_LINES = [i for i, line in enumerate(P2) if "wait_cross_core" in line or "set_cross_core" in line]


def _inputs():
    rng = np.random.default_rng(0)
    return {"a": rng.standard_normal((256, 64)).astype(np.float32),
            "b": rng.standard_normal((64, 64)).astype(np.float32),
            "d": rng.standard_normal((64, 64)).astype(np.float32)}


def _run(lines):
    return run_kernel("demo_p2_mutant.py", NAME, _inputs(), source="".join(lines))


def _line_of(text):
    """1-based line of the first source line containing `text` (stage bodies are not mutated)."""
    return next(i + 1 for i, line in enumerate(P2) if text in line)


def test_there_are_many_sync_lines():
    assert len(SYNC_LINES) == 34


@pytest.mark.parametrize("index", spread(SYNC_LINES, 8, ids=lambda i: f"line{i + 1}"))
def test_deleting_any_single_sync_line_is_reported(index):
    mutant = P2[:index] + P2[index + 1:]
    with pytest.raises((DeadlockError, SyncBalanceError, RaceError)):
        _run(mutant)


FORWARD = {
    # buffer: (producer write op text, consumer read op text)
    "mm1_vec_db": ("pl.move(mm1_vec, acc", "pl.relu(relu_vec, mm1_vec)"),
    "p_mat_db": ("pl.insert(p_mat, relu_nz", "pl.move(left, p_mat)"),
    "out_vec_db": ("pl.move(out_vec, acc", "pl.store(out, out_vec"),
}


@pytest.mark.parametrize("buf", sorted(FORWARD))
def test_removing_a_forward_edge_is_a_race_naming_both_ops(buf):
    mutant = [line for line in P2
              if not (f"_pl_fwd_ids_{buf}[" in line and re.search(r"(set|wait)_cross_core", line))]
    assert len(mutant) < len(P2)
    with pytest.raises(RaceError) as err:
        _run(mutant)
    msg = str(err.value)
    producer, consumer = FORWARD[buf]
    p_line, c_line = _line_of(producer), _line_of(consumer)
    assert f"demo_p2_mutant.py:{p_line}" in msg and f"demo_p2_mutant.py:{c_line}" in msg
    assert re.search(r"write by b0\.\w+ on pipe \w+: pl\.(move|insert)", msg)
    assert re.search(r"read\s+by b0\.\w+ on pipe \w+: pl\.(relu|move|store)", msg)


@pytest.mark.parametrize("old,new", [
    # set raised on the wrong pipe: it no longer follows the FIX move into UB
    ("set_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_fwd_ids_mm1_vec_db",
     "set_cross_core(pipe=pl.PipeType.M, event_id=_pl_fwd_ids_mm1_vec_db"),
    # wait on the wrong pipe: it no longer holds back the V-pipe relu
    ("wait_cross_core(pipe=pl.PipeType.V, event_id=_pl_fwd_ids_mm1_vec_db",
     "wait_cross_core(pipe=pl.PipeType.MTE2, event_id=_pl_fwd_ids_mm1_vec_db"),
    # an AIV signals p_mat ready on V although its insert into L1 runs on MTE3
    ("set_cross_core(pipe=pl.PipeType.MTE3, event_id=_pl_fwd_ids_p_mat_db[_pl_ctx",
     "set_cross_core(pipe=pl.PipeType.V, event_id=_pl_fwd_ids_p_mat_db[_pl_ctx"),
])
def test_sync_on_the_wrong_pipe_is_a_race(old, new):
    text = "".join(P2)
    assert old in text
    with pytest.raises(RaceError):
        _run([text.replace(old, new)])


def test_release_on_a_later_dependent_pipe_is_not_a_race():
    # The cube releases p_mat on FIX instead of MTE1. Not a race: the FIX move of stage3 reads
    # the acc slot written by the matmul, which read the Left slot filled by the MTE1 move
    # (auto_mutex chains them), so the FIX set already follows the MTE1 read of p_mat.
    text = "".join(P2).replace(
        "set_cross_core(pipe=pl.PipeType.MTE1, event_id=_pl_bwd_ids_p_mat_db[_pl_ctx",
        "set_cross_core(pipe=pl.PipeType.FIX, event_id=_pl_bwd_ids_p_mat_db[_pl_ctx")
    assert _run([text]).cycles > 0


def test_correct_kernel_passes_the_same_harness():
    res = _run(P2)
    assert res.cycles > 0


def test_mutations_report_simulation_errors_not_other_exceptions():
    # deleting a prefire set starves a wait: a deadlock, reported as a SimulationError
    first = SYNC_LINES[0]
    with pytest.raises(SimulationError):
        _run(P2[:first] + P2[first + 1:])
