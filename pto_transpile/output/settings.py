"""One invocation's settings, as the command line and pyproject.toml decided them, and the
exit statuses. Light: the command builds it before anything heavy is imported."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pto_transpile.preload import Auto

if TYPE_CHECKING:
    from pto_transpile.read.discover import Input

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class Run:
    """One invocation's settings, after defaults from pyproject.toml are applied."""

    inputs: tuple[Input, ...]
    targets: tuple[Path | None, ...]  #: where each input's kernel goes (None: stdout)
    preload: object
    output: str | None
    check: bool
    show_diff: bool
    fmt: str
    color: bool
    select: list[str]
    ignore: list[str]
    provenance: bool
    simulate: bool
    seed: int
    block_dim: int
    shapes: tuple[str, ...]
    scalars: tuple[str, ...]
    timeline: Path | None
    jobs: int = 1
    report: Path | None = None
    gantt: bool = False
    preload_is_default: bool = False  #: `preload` came from pyproject.toml: `sync_only=True` kernels keep 0
    #: with `-o DIR/`: (the folder under DIR that mirrors a directory given, that directory):
    #: each output of pto-transpile there is the output of an input there (`output.orphans`)
    mirrors: tuple[tuple[Path, Path], ...] = ()
    quiet: bool = False  #: no `wrote FILE` / `unchanged FILE` line per file (`-q`)
    #: a warning shown counts as an error: reported as one, exit status 1, nothing written for its file
    warnings_as_errors: bool = False

    @property
    def simulates(self) -> bool:
        """--simulate, or a picture (--report, --gantt) of the kernel --preload auto chose."""
        return self.simulate or (isinstance(self.preload, Auto) and (self.report is not None or self.gantt))

    @property
    def to_stdout(self) -> bool:
        """The generated code goes to stdout: `-o -`, or standard input without `-o` and a text
        report (with json, sarif or github, stdout carries the report: standard input is
        checked, as with --check)."""
        return (any(t is None for t in self.targets) and not (self.check or self.show_diff)
                and (self.output == "-" or self.fmt == "text"))

    @property
    def notes_stream(self):
        """Where tables and notes go: stderr whenever stdout carries data (code, a diff or a report)."""
        return sys.stderr if self.to_stdout or self.show_diff or self.fmt != "text" else sys.stdout

    @property
    def diagnostics_stream(self):
        """The report, in any format: stdout, unless stdout carries the code (`-o -`) or a diff
        (--diff), so that `--diff | patch` reads only the diff."""
        return sys.stderr if self.to_stdout or self.show_diff else sys.stdout
