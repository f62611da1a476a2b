"""A usage error (exit status 2) that is about the files, not about how the command line is
written: a file `-o` would replace that pto-transpile did not write, an output that is a
directory. Said as click says an error, without the usage banner and the `--help` hint, which
would send the user to the options for what is a fact of their files."""

from __future__ import annotations

import click


class Refused(click.UsageError):
    def show(self, file=None) -> None:
        click.echo(f"Error: {self.format_message()}", file=file, err=file is None)
