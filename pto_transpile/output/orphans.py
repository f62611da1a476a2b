"""Outputs of no input: files pto-transpile wrote (its mark is in them) under the output
folders that mirror the directories a run was given, which no input of the run maps to. The
input was renamed, moved or deleted, and the output stays behind, unreviewed code no check
looks at again; `--check` reports each (PTO094)."""

from __future__ import annotations

import os
from pathlib import Path

from pto_transpile.read.mark import PREFIX


def orphans(mirrors: tuple[Path, ...], targets: tuple[Path | None, ...]) -> list[Path]:
    """The marked `*.py` files under `mirrors` that are none of `targets`, in path order."""
    made = {os.path.realpath(t) for t in targets if t is not None}
    found: dict[str, Path] = {}
    for folder in mirrors:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.py")):
            real = os.path.realpath(path)
            if real in made or real in found or not path.is_file():
                continue
            try:
                marked = PREFIX.encode() in path.read_bytes()
            except OSError:
                continue  # (a file it cannot read is no output it can tell)
            if marked:
                found[real] = path
    return sorted(found.values())
