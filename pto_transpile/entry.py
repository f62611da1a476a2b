"""The `pto-transpile` console script: `--version` and `--help` answered before click is
imported.

An editor or a pre-commit hook may ask for the version or the help on every call. The
help is click's own text, kept in `helptext.py` (and rendered by click whenever
that text would not be what click prints: another click release, a narrow terminal).
Everything else is the click command in `cli.py`, which imports the analysis only when a
file is read."""

from __future__ import annotations

import sys


def main() -> None:
    args = sys.argv[1:]
    if args == ["--version"]:
        from pto_transpile import __version__

        _print(f"pto-transpile {__version__}\n")
        return
    if args in (["--help"], ["-h"]):
        from pto_transpile.helptext import static_help

        text = static_help()
        if text is not None:
            _print(text)
            return
    from pto_transpile.cli import main as command

    command(prog_name="pto-transpile")


def _print(text: str) -> None:
    """Print `text`; a reader that went away ends the call with status 1, as click does."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
