"""The `pto-transpile` console script: `--version` and `--help` answered before click is
imported.

An editor or a pre-commit hook may ask for the version or the help on every call. The
help is click's own text, kept in `helptext.py` (and rendered by click whenever that text
would not be what click prints: another click release, a narrow terminal). Everything
else is the click command in `cli.py`, which imports the analysis only when a file is
read."""

from __future__ import annotations

import sys

EXIT_USAGE = 2  # as output/settings.py: unwritable output
EXIT_STDOUT_CLOSED = 128 + 13  # as cli.py: what a shell reports for a process ended by SIGPIPE


def main() -> None:
    try:
        _main(sys.argv[1:])
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(EXIT_STDOUT_CLOSED)  # (as the command itself: probe h217, `--help | true` gave 1)
    except OSError as exc:  # stdout cannot be written (a full disk): said, never a traceback
        _quiet_stdout()
        print(f"pto-transpile: cannot write to standard output: {exc.strerror or exc}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _main(args: list[str]) -> None:
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
    sys.stdout.write(text)
    sys.stdout.flush()


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that Python's flush at exit has nothing left to fail on."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file descriptor (a test runner's buffer)
