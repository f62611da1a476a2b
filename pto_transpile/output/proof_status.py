"""A status line on the terminal while a long proof runs.

A kernel with loops of run-time trip count takes tens of seconds to minutes to prove, with
nothing printed meanwhile: it looks hung. On a terminal the command shows one line on stderr,
rewritten in place, saying how many of the proof's runs are judged (`soundness.progress`).
It appears only once a proof has run for `DELAY` seconds (a static kernel's proof never
shows it), is rewritten at most every `INTERVAL` seconds, and is erased when the proof ends,
before anything else is printed. Not on a terminal (CI logs, pipes), nothing is shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

#: Seconds a proof runs before its status line appears.
DELAY = 1.0
#: Seconds between two rewrites of the line.
INTERVAL = 0.1


class ProofStatus:
    """The listener of `soundness.progress` for a terminal's stderr."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic):
        self.stream = stream
        self.clock = clock
        self.started: dict[str, float] = {}  #: kernel -> when its proof first reported
        self.shown = 0  #: the width of the line on the screen (0: none shown)
        self.last = float("-inf")

    def __call__(self, kernel: str, judged: int, runs: int) -> None:
        now = self.clock()
        if judged >= runs:  # the proof ended
            self.started.pop(kernel, None)
            self.erase()
            return
        start = self.started.setdefault(kernel, now)
        if now - start < DELAY or now - self.last < INTERVAL:
            return
        self.last = now
        text = f"proving `{kernel}`: {judged} of {runs} runs judged"
        self.stream.write("\r" + text.ljust(self.shown))
        self.stream.flush()
        self.shown = max(self.shown, len(text))

    def erase(self) -> None:
        """Take the line off the screen, if one is shown."""
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()
            self.shown = 0


def status_for(stream: TextIO) -> ProofStatus | None:
    """A status line for `stream` when it is a terminal, else None."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # closed, or not a real file
        return None
    return ProofStatus(stream) if tty else None
