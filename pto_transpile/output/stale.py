"""Is the `-o` file current? What `--check` and `--diff` compare a generated kernel with.

Files are compared as they are on disk: a CRLF or CR-only file that is current is current.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def current_text(target: Path) -> str | None:
    """The text now in `target` as it is on disk (line endings untranslated), or None when
    there is none (or it cannot be read as text, or it is no regular file: a FIFO would block
    the read until something writes to it, ux3 review)."""
    if not _regular_or_missing(target):
        return None
    try:
        with open(target, encoding="utf-8", newline="") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def staleness(target: Path, code: str) -> tuple[str, int, str | None] | None:
    """(why `target` is out of date, the first line that differs, its text), or None when current
    or when `target` is no regular file (`/dev/null`, a FIFO: what a run writes into it is not
    kept, so there is nothing to compare, and `--check -o /dev/null` checks the kernel alone)."""
    if not _regular_or_missing(target):
        return None
    if not target.exists():
        return "does not exist", 1, None
    current = current_text(target)
    if current is None:
        return "cannot be read as UTF-8 text", 1, None
    if current == code:
        return None
    ours, theirs = code.splitlines(keepends=True), current.splitlines(keepends=True)
    pairs = enumerate(zip(ours, theirs, strict=False), 1)
    line = next((i for i, (a, b) in pairs if a != b), min(len(ours), len(theirs)) + 1)
    if line > len(theirs):  # (the file stops short: the location is its last line, which the words name too, h231)
        return (f"is out of date (it ends at line {len(theirs)}, where the output goes on)", max(1, len(theirs)),
                current)
    return f"is out of date (first difference at line {line})", line, current


def _regular_or_missing(target: Path) -> bool:
    """Is `target` a regular file (through symlinks), or nothing at all?"""
    try:
        return stat.S_ISREG(os.stat(target).st_mode)
    except OSError:
        return True
