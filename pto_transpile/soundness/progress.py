"""How far a long proof has come, for the person waiting on it.

A kernel whose loops have run-time trip counts is proven by up to hundreds of runs (the
dynamic FlashAttention: 55 at preload 1, 85 at preload 2; seconds to tens of seconds on one
core), and nothing else is printed meanwhile. The check says after every run how many
of the proof's runs are judged (`report`); whoever listens (`listening`: the command line,
on a terminal) shows it. Only the process that started listening reports: the worker
processes of a proof or of a many-file command do not write to its terminal.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: (kernel, runs judged, runs in all); judged == in all when the kernel's proof has ended
Listener = Callable[[str, int, int], None]

_LISTENER: tuple[int, Listener] | None = None  #: (the listening process, its listener)


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """`listener` told of every proof run judged in this process while inside."""
    global _LISTENER
    before = _LISTENER
    _LISTENER = (os.getpid(), listener)
    try:
        yield
    finally:
        _LISTENER = before


def report(kernel: str, judged: int, runs: int) -> None:
    """`judged` of the `runs` of `kernel`'s proof are judged (all of them: the proof ended)."""
    if _LISTENER is not None and _LISTENER[0] == os.getpid():
        _LISTENER[1](kernel, judged, runs)
