"""The `pto-transpile` console script: `--version` answered before click is imported.

An editor or a pre-commit hook may ask for the version on every call; everything else,
`--help` included, is the click command in `cli.py` (which imports the analysis only when
a file is read)."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        from pto_transpile import __version__

        print(f"pto-transpile {__version__}")
        return
    from pto_transpile.cli import main as command

    command(prog_name="pto-transpile")
