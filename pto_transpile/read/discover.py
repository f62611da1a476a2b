"""The inputs a command names: files, directories walked for Python files, and `-` for stdin.

A directory is walked as ruff walks one: every `*.py` file under it, in sorted order,
except what the excludes of `[tool.pto-transpile]` leave out (excluded directories are
not entered). A file named on the command line is always read, excluded or not. The same
file named twice (or found twice) is read once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pto_transpile.read.excludes import Excludes

STDIN = "-"
STDIN_NAME = "<stdin>"


@dataclass(frozen=True)
class Input:
    """One kernel file to read: `walked` when a directory argument found it (such a file
    without a kernel is skipped quietly instead of being reported)."""

    path: Path
    walked: bool = False

    @property
    def is_stdin(self) -> bool:
        return str(self.path) == STDIN

    @property
    def name(self) -> str:
        """How diagnostics name it."""
        return STDIN_NAME if self.is_stdin else str(self.path)


def expand(arguments: Iterable[Path], excludes: Excludes, base: Path, force: bool = False,
           skip: frozenset[str] = frozenset()) -> list[Input]:
    """The inputs, in argument order; `base` is where exclude patterns are relative to. With
    `force`, a file named on the command line is left out too where the excludes leave it out
    (itself or a folder above it), as a pre-commit hook that names every staged file needs.
    A walk does not enter a folder whose real path is in `skip` (the output folders, however the
    walk reaches them: through a symlink, or outside `base`)."""
    out: list[Input] = []
    seen: set[object] = set()
    for arg in arguments:
        if force and str(arg) != STDIN and not arg.is_dir() and _excluded_file(arg, excludes, base):
            continue
        found = _walk(arg, excludes, base, skip) if str(arg) != STDIN and arg.is_dir() else [Input(arg)]
        for item in found:
            key = _identity(item.path)
            if key not in seen:
                seen.add(key)
                out.append(item)
    return out


def _identity(path: Path) -> object:
    try:
        info = path.stat()
        return info.st_dev, info.st_ino
    except OSError:
        return str(path)


def _excluded_file(path: Path, excludes: Excludes, base: Path) -> bool:
    """Whether the excludes leave out `path` or a folder above it (up to `base`)."""
    relative = _relative(path, base)
    parts = relative.split("/")
    folders = ("/".join(parts[:i]) for i in range(1, len(parts)))
    return excludes.excluded(relative, is_dir=False) or any(excludes.excluded(f, is_dir=True) for f in folders)


def _walk(top: Path, excludes: Excludes, base: Path, skip: frozenset[str] = frozenset()) -> list[Input]:
    found = []
    for folder, dirs, files in os.walk(top):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not excludes.excluded(_relative(here / d, base), is_dir=True)
                         and not (skip and os.path.realpath(here / d) in skip))
        found += [Input(here / f, walked=True) for f in sorted(files)
                  if f.endswith(".py") and not excludes.excluded(_relative(here / f, base), is_dir=False)]
    return found


def _relative(path: Path, base: Path) -> str:
    """`path` relative to `base` with `/` separators (its absolute form when outside `base`)."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(base).as_posix()
    except ValueError:
        pass
    try:  # (reached through a symlink: `"$PWD/kernels"` in a checkout reached by one)
        return (Path(os.path.realpath(absolute.parent)).relative_to(os.path.realpath(base)) / absolute.name).as_posix()
    except ValueError:
        return absolute.as_posix().lstrip("/")
