"""Run tasks in forked child processes, at most `jobs` at a time, each under a wall-clock limit.

One fresh child per task: a hang is ended by killing that child (by its own pid), a segfault
only loses that task, and no state (threads a stuck emulator left behind, caches) leaks from
one mutant into the next. Children are forked from a warmed-up parent, so they start with
every module imported.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

_FORK = multiprocessing.get_context("fork")


@dataclass(frozen=True)
class Done:
    value: Any


@dataclass(frozen=True)
class Hung:
    seconds: float


@dataclass(frozen=True)
class Died:
    """The child ended without an answer (a segfault, os._exit, the OOM killer)."""

    exitcode: int


@dataclass(frozen=True)
class Raised:
    """The task function itself raised: a bug of the fuzzer, not of what it tests."""

    traceback: str


Outcome = Done | Hung | Died | Raised


def _child(fn: Callable, task: Any, conn) -> None:
    try:
        conn.send(Done(fn(task)))
    except BaseException:  # noqa: BLE001 - reported to the parent, which decides
        conn.send(Raised(traceback.format_exc()))
    conn.close()


@dataclass
class _Running:
    index: int
    process: Any
    conn: Any
    deadline: float
    started: float


def run(fn: Callable, tasks: Iterable, *, jobs: int, timeout: float) -> Iterator[tuple[int, Outcome]]:
    """Yield (task index, outcome) as tasks finish (in completion order: callers sort)."""
    pending = list(enumerate(tasks))
    pending.reverse()
    running: list[_Running] = []
    while pending or running:
        while pending and len(running) < max(1, jobs):
            index, task = pending.pop()
            recv, send = _FORK.Pipe(duplex=False)
            sys.stdout.flush()
            sys.stderr.flush()
            proc = _FORK.Process(target=_child, args=(fn, task, send))
            proc.start()
            send.close()
            now = time.monotonic()
            running.append(_Running(index, proc, recv, now + timeout, now))
        next_deadline = min(r.deadline for r in running)
        ready = wait([r.conn for r in running], timeout=max(0.0, next_deadline - time.monotonic()))
        now = time.monotonic()
        for r in list(running):
            outcome = None
            if r.conn in ready:
                try:
                    outcome = r.conn.recv()
                except EOFError:
                    r.process.join()
                    outcome = Died(r.process.exitcode)
            elif now >= r.deadline:
                r.process.kill()
                outcome = Hung(now - r.started)
            if outcome is None:
                continue
            r.process.join()
            r.conn.close()
            running.remove(r)
            yield r.index, outcome


def call(fn: Callable, task: Any, timeout: float) -> Outcome:
    """Run one task in a child under the time limit."""
    return next(run(fn, [task], jobs=1, timeout=timeout))[1]
