"""Run what executes the kernel file's Python in a child process.

The emulator runs the file's module code as Python runs it, and that code may change what the
tool itself uses afterwards: `dataclasses.dataclass` replaced, a module attribute patched,
`sys.modules` edited. In a forked child those changes end with the child; the tool reads the
answer (pickled through a pipe) and renders the report, writes the files and exits with a
process no kernel file has touched. The answer is pickled by the functions this module took
before any file ran, and read back by an unpickler that makes only the emulator's and the
tool's classes, numpy arrays and plain builtin values: bytes the file's code chose (a
replaced `pickle.dumps`, a class's `__reduce__`) run nothing here (probe h118). What the file's
code does to the emulator inside the child (numpy, the emulator's own functions) can still
change the verdict it gives: `--simulate` is a test of a file that leaves the emulator alone,
and the check's proof does not run the file at all. Where `fork` is missing, the call runs in
this process.
"""

from __future__ import annotations

import io
import os
import pickle
import sys
from collections.abc import Callable
from typing import Any

#: taken before any kernel file runs: a file's module code may replace what `pickle` holds
_DUMPS = pickle.dumps
#: the modules whose classes an answer may hold, by their first name
_OWN_MODULES = frozenset({"sim_runtime", "pto_transpile", "pto_api"})
#: numpy's reconstructors of arrays and scalars, containers and the counters an answer may hold
_ALLOWED = frozenset({("numpy", "dtype"), ("numpy", "ndarray"), ("numpy.core.multiarray", "_reconstruct"),
                      ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "_reconstruct"),
                      ("numpy._core.multiarray", "scalar"), ("copyreg", "_reconstructor"),
                      ("collections", "OrderedDict"), ("collections", "Counter"), ("collections", "defaultdict"),
                      ("itertools", "count")})
_BUILTIN_VALUES = frozenset({"list", "dict", "set", "frozenset", "tuple", "bytes", "bytearray", "int", "float",
                             "complex", "str", "bool", "slice", "range", "object"})


class _Answer(pickle.Unpickler):
    """Makes only what an answer of the emulator holds (`_OWN_MODULES`' classes, `_ALLOWED`,
    builtin values and exceptions); anything else is an answer the tool does not read."""

    def find_class(self, module: str, name: str) -> Any:
        found = super().find_class(module, name)
        own = module.split(".")[0] in _OWN_MODULES and isinstance(found, type)
        builtin = module == "builtins" and (name in _BUILTIN_VALUES
                                            or isinstance(found, type) and issubclass(found, BaseException))
        if own or builtin or (module, name) in _ALLOWED:
            return found
        raise pickle.UnpicklingError(f"the emulator's answer holds `{module}.{name}`, which the tool does not read "
                                     "back (the kernel file's code may have made it)")


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
    ok, value = _Answer(io.BytesIO(data)).load()
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
        data = _DUMPS(payload)
        _Answer(io.BytesIO(data)).load()
        return data
    except Exception as exc:  # noqa: BLE001
        what = payload[1] if not payload[0] else exc
        return _DUMPS((False, RuntimeError(f"{type(what).__name__}: {what}")))


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
