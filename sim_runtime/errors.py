"""Errors raised by the emulator.

Every error is a `SimulationError` so callers (tests, `verify`) can catch one type; each
carries the kernel file:line of the offending call when one is known, because a report that
does not point at the user's source is useless to a kernel author.
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """A point in the user's kernel file (1-based line)."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def annotate_locations(text: str, file: str, note: Callable[[int], str | None]) -> str:
    """Append ` (note)` to every `file:line` of `text` (as `Location` writes them) that
    `note(line)` has something to say about."""
    def add(match: re.Match) -> str:
        said = note(int(match.group(1)))
        return match.group(0) + (f" ({said})" if said else "")

    return re.sub(re.escape(file) + r":(\d+)\b", add, text)


def caller(depth: int = 2) -> Location:
    """Where the code `depth` frames up the stack is (1 = the function calling `caller`)."""
    f = sys._getframe(depth)
    return Location(f.f_code.co_filename, f.f_lineno)


def raised_at(exc: BaseException, file: str) -> Location | None:
    """The innermost line of `file` on `exc`'s traceback (None when `file` is not on it)."""
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == file]
    return Location(file, lines[-1] or 0) if lines else None


#: What kernel code raises that is the kernel failing: its exceptions, and the `SystemExit` of
#: `exit()`, `quit()` or `sys.exit()`, which on the emulator would end the tool, not the kernel.
KERNEL_FAULTS = (Exception, SystemExit)


def raised_what(exc: BaseException) -> str:
    """`exc` as a verdict names it: its type and message (`exit()` gives no message of its own)."""
    if isinstance(exc, SystemExit):
        code = "" if exc.code is None else f" with code {exc.code!r}"
        return f"SystemExit{code} (exit(), quit() or sys.exit(): a kernel has no process to end)"
    return f"{type(exc).__name__}: {exc}"


class SimulationError(Exception):
    """Base class: the simulated kernel did something the hardware would not survive."""

    def __init__(self, message: str, location: Location | None = None):
        self.message = message
        self.location = location
        super().__init__(f"{message} (at {location})" if location else message)


class KernelError(SimulationError):
    """Bad shapes, out-of-bounds GM access, wrong memory spaces, kernel exceptions."""


class SectionMismatchError(KernelError):
    """Sequential mode: cores met different sequences of sections."""


class UnsupportedOpError(SimulationError):
    """The kernel calls a `pl` op the emulator does not implement (never silently skipped)."""


class DeadlockError(SimulationError):
    """Every unfinished core is blocked in a wait or barrier that can never complete."""


class RaceError(SimulationError):
    """Two unordered accesses to the same bytes, at least one a write."""


class EventOverflowError(SimulationError):
    """More than 15 outstanding sets on one cross-core event counter."""


class SyncBalanceError(SimulationError):
    """Cross-core flags left over (or owed) when the kernel ends."""


def located(exc: SimulationError, where: Location | None) -> SimulationError:
    """`exc`, given `where` as its location if it has none yet."""
    return exc if exc.location is not None or where is None else type(exc)(exc.message, where)
