"""Outputs of no input: files pto-transpile wrote (its mark is in them) under the output
folders that mirror the directories a run was given, which no input of the run maps to. The
input was renamed, moved or deleted, and the output stays behind, unreviewed code no check
looks at again; `--check` reports each (PTO094)."""

from __future__ import annotations

import os
from pathlib import Path

from pto_transpile.output.write import marked_output


def orphans(mirrors: tuple[tuple[Path, Path], ...], targets: tuple[Path | None, ...]) -> list[tuple[Path, Path]]:
    """(file, the input it would be the output of) of the marked `*.py` files under each mirror
    folder of `mirrors` ((mirror, input folder) pairs) that are none of `targets` and whose input
    does not exist, in path order. An output whose input exists but was not an input of the run
    (excluded, or under a folder the walk does not enter) is not one (ux3 review)."""
    made = {os.path.realpath(t) for t in targets if t is not None}
    found: dict[str, tuple[Path, Path]] = {}
    for folder, inputs in mirrors:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.py")):
            real = os.path.realpath(path)
            source = inputs / path.relative_to(folder)
            if real not in made and real not in found and not source.exists() and marked_output(path):
                found[real] = (path, source)
    return sorted(found.values())
