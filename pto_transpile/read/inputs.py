"""Reading a kernel file the way a careful tool does: regular files of sane size only.

A FIFO with no writer would block the read for ever, and a device such as /dev/zero (or a
symlink to one) never ends; both are refused before anything is read. The file is opened
non-blocking and judged by `fstat` of the open descriptor, so what is read is what was
judged.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: The largest kernel file read (bytes). Real kernel files are tens of kilobytes; above
#: this, parsing alone would take many seconds.
MAX_INPUT_BYTES = 1 << 20

_KINDS = ((stat.S_ISDIR, "it is a directory"), (stat.S_ISFIFO, "it is a FIFO (named pipe), not a regular file"),
          (stat.S_ISCHR, "it is a character device, not a regular file"),
          (stat.S_ISBLK, "it is a block device, not a regular file"),
          (stat.S_ISSOCK, "it is a socket, not a regular file"))


class UnreadableInput(Exception):
    """Why a kernel file cannot be read (the detail of a PTO002 diagnostic)."""


def read_input(path: Path) -> str:
    """The UTF-8 text of the kernel file at `path`; UnreadableInput says why not."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UnreadableInput("no such file") from None
    except IsADirectoryError:
        raise UnreadableInput("it is a directory") from None
    except OSError as exc:
        raise UnreadableInput(exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        for is_kind, detail in _KINDS:
            if is_kind(info.st_mode):
                raise UnreadableInput(detail)
        if info.st_size > MAX_INPUT_BYTES:
            raise UnreadableInput(f"it has {info.st_size} bytes; kernel files of more than {MAX_INPUT_BYTES} bytes "
                                  "are not read")
        data = _read_at_most(fd, MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise UnreadableInput(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)
    if len(data) > MAX_INPUT_BYTES:  # it grew while we looked
        raise UnreadableInput(f"it has more than {MAX_INPUT_BYTES} bytes; larger kernel files are not read")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableInput(f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(fd, min(1 << 16, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_stdin() -> str:
    """The UTF-8 text on standard input (`-`), with the same size limit as a file."""
    import sys

    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise UnreadableInput("standard input is closed")
    try:
        data = stream.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise UnreadableInput(exc.strerror or str(exc)) from None
    if len(data) > MAX_INPUT_BYTES:
        raise UnreadableInput(f"it has more than {MAX_INPUT_BYTES} bytes; larger kernel files are not read")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableInput(f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
