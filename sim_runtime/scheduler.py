"""Deterministic scheduler: one thread per core, exactly one running at a time.

Python cannot suspend a function mid-body without threads or generators, and kernel code is
ordinary Python (loops, helpers, stages), so each core runs in its own `threading.Thread`.
The scheduler hands a single "token" around with one semaphore per core: a core runs until
its next scheduling point (every op and sync call), then gives the token back. The next core
is the runnable one with the smallest simulated time (ties by core order, or seeded random),
so the interleaving follows the timing model and is reproducible.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Protocol

_tls = threading.local()


def current_core():
    """The core whose thread is calling (None outside a simulation)."""
    return getattr(_tls, "core", None)


class Blocker(Protocol):
    """Why a core cannot continue: a wait, a barrier. Evaluated only by the scheduler."""

    def ready(self) -> bool: ...

    def time(self) -> int: ...

    def describe(self) -> str: ...


class _Abort(BaseException):
    """Unwinds a core's Python stack when the run stops (not an Exception: kernels may catch those)."""


class Scheduler:
    def __init__(self, cores: list, rng: random.Random | None = None):
        self.cores = cores
        self.rng = rng
        self._back = threading.Semaphore(0)
        self._abort = False

    # -- called from core threads -----------------------------------------------------------
    def point(self, core, blocker: Blocker | None = None) -> None:
        """Give the token back; return when the scheduler resumes this core (blocker satisfied)."""
        core.blocker = blocker
        self._back.release()
        core.go.acquire()
        if self._abort:
            raise _Abort()
        core.blocker = None

    # -- main thread ------------------------------------------------------------------------
    def run(self, body: Callable, on_stuck: Callable[[list], BaseException]) -> None:
        threads = [threading.Thread(target=self._main, args=(c, body), daemon=True, name=c.name)
                   for c in self.cores]
        for t in threads:
            t.start()
        try:
            while True:
                live = [c for c in self.cores if not c.finished]
                if not live:
                    break
                runnable = [c for c in live if c.blocker is None or c.blocker.ready()]
                if not runnable:
                    raise on_stuck(live)
                core = min(runnable, key=self._key)
                core.go.release()
                self._back.acquire()
                if core.error is not None:
                    raise core.error
        finally:
            self._stop(threads)

    def _key(self, core):
        t = core.clock if core.blocker is None else max(core.clock, core.blocker.time())
        tie = self.rng.random() if self.rng is not None else 0.0
        return (t, tie, core.index)

    def _main(self, core, body) -> None:
        _tls.core = core
        core.go.acquire()
        try:
            if not self._abort:
                body(core)
        except _Abort:
            pass
        except BaseException as exc:  # handed to the main thread
            core.error = exc
        finally:
            core.finished = True
            _tls.core = None
            self._back.release()

    def _stop(self, threads) -> None:
        self._abort = True
        for c in self.cores:
            if not c.finished:
                c.go.release()
                self._back.acquire()
        for t in threads:
            t.join(timeout=5)
