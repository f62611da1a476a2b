"""Run what executes the kernel file's Python in a child process.

The emulator runs the file's module code as Python runs it, and that code may change what the
tool itself uses afterwards: `dataclasses.dataclass` replaced, a module attribute patched,
`sys.modules` edited. In a forked child those changes end with the child; the tool reads the
answer (pickled through a pipe) and renders the report, writes the files and exits with a
process no kernel file has touched. Where `fork` is missing, the call runs in this process.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable
from typing import Any


class ChildEnded(RuntimeError):
    """The child gave no answer: the file's code ended the process (`os._exit`), or it was
    killed (out of memory)."""


def in_child(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` computed in a forked child: its value, or its exception raised here."""
    if not hasattr(os, "fork"):
        return fn(*args, **kwargs)
    _flush()  # what this process buffered is written once, not again by the child
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child: coverage and pytest see only the parent)
        os.close(read_end)
        try:
            with os.fdopen(write_end, "wb") as out:
                out.write(_answer(fn, args, kwargs))
        finally:
            _flush()
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as answer:
        data = answer.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else \
            f"exit status {os.waitstatus_to_exitcode(status)}"
        raise ChildEnded(f"the emulator's process ended without an answer ({how}): the kernel file's code may "
                         "have ended it, or it ran out of memory")
    ok, value = pickle.loads(data)
    if ok:
        return value
    raise value


def _answer(fn: Callable[..., Any], args: tuple, kwargs: dict) -> bytes:
    """The pickled (True, value) or (False, exception); an exception that does not survive a
    pickle round trip (its class takes other arguments) as a RuntimeError naming it."""
    try:
        payload: tuple[bool, Any] = (True, fn(*args, **kwargs))
    except BaseException as exc:  # noqa: BLE001 (every way out is handed to the parent)
        payload = (False, exc)
    try:
        data = pickle.dumps(payload)
        pickle.loads(data)
        return data
    except Exception as exc:  # noqa: BLE001
        what = payload[1] if not payload[0] else exc
        return pickle.dumps((False, RuntimeError(f"{type(what).__name__}: {what}")))


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
