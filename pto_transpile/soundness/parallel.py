"""The runs of one proof on several processes.

A kernel whose loops have run-time trip counts is proven by hundreds of independent runs
(`check._trip_configs`: the dynamic FlashAttention takes 85 at preload 2, seconds on one core). Their
verdicts do not depend on each other, so when the command allows it (`JOBS`, set by the
command line from `--jobs`, for the process that runs the command: one file's proof, not
the workers of a many-file command, which already share the CPUs), they are
judged on forked worker processes first: each worker says only whether a run passed and
which values of scalar parameters its tests asked for (`Uniform.cut_values`). The proof
then goes through the runs in order as before, skipping the ones that passed, so the first
failing run is judged again here and reported exactly as a sequential proof reports it.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

#: Worker processes a proof may use; 1 (the default of the API) judges every run here.
JOBS = 1
#: Fewer runs than this are judged here: forking costs more than it saves.
MIN_RUNS = 16
#: the process that set `JOBS` (`proof_jobs`); None: set directly (the API, tests)
_OWNER: int | None = None

#: (configs, check) of the proof the workers serve: forked workers see it, nothing is pickled
_JOB: tuple[list, Callable[..., list]] | None = None


@contextmanager
def proof_jobs(jobs: int) -> Iterator[None]:
    """`JOBS` set to `jobs` for what runs inside (a command's transpiles) in this process,
    then as it was."""
    global JOBS, _OWNER
    before = JOBS, _OWNER
    JOBS, _OWNER = jobs, os.getpid()
    try:
        yield
    finally:
        JOBS, _OWNER = before


def usable() -> int:
    """Workers this process may start: none in a process forked from the one that set
    `JOBS` (a worker of a many-file command already shares the CPUs with the others), or
    where `fork` is not available."""
    if JOBS <= 1 or (_OWNER is not None and os.getpid() != _OWNER) or multiprocessing.current_process().daemon:
        return 1
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return JOBS


def passed_runs(configs: list, check: Callable[..., list],
                judged: Callable[[int], None] = lambda _count: None) -> dict[int, set]:
    """For each run of `configs` that passes `check(config, cuts)`: its index -> the cuts it
    recorded. Empty when the runs are judged here (too few, or one worker). `judged` is told
    how many runs the workers have judged, as they come back."""
    jobs = usable()
    if jobs <= 1 or len(configs) < MIN_RUNS:
        return {}
    global _JOB
    _JOB = (configs, check)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            # the costliest runs (longest trip counts) come last: hand them out first
            order = sorted(range(len(configs)), key=lambda i: -i)
            results = []
            for result in pool.map(_judge, order, chunksize=1):
                results.append(result)
                judged(len(results))
    finally:
        _JOB = None
    return {i: cuts for i, ok, cuts in results if ok}


def _judge(index: int) -> tuple[int, bool, set[Any]]:
    assert _JOB is not None, "a worker forked from a proof"
    configs, check = _JOB
    cuts: set = set()
    problems = check(configs[index], cuts)
    return index, not problems, cuts
