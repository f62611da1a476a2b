"""Where a run's outputs go and what they must not touch, as the command line and pyproject.toml
set them: the project's output folder (`output = "DIR/"`), taken from the pyproject.toml's
directory wherever the command runs; the output folders a directory walk leaves out; the default
build/ folder's outputs, which are the tool's own only while no symlink leads them elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

import click

from pto_transpile.output.write import is_dir_target


def configured_output(defaults: dict, base: Path) -> tuple[str, Path, Path] | None:
    """`output = "DIR/"` of pyproject.toml as the command line would give it: (the directory
    relative to the working directory, where inputs' paths under it are taken from: the
    pyproject.toml's directory, as its exclude patterns are; the directory resolved).
    None for no `output`, or one that names a file or stdout (taken as the command line takes it)."""
    output = defaults.get("output")
    # (`base / output` drops the `/` that makes "gen/" a folder before it exists: a fresh clone)
    if not isinstance(output, str) or output == "-" or not (is_dir_target(output) or (base / output).is_dir()):
        return None
    folder = (base / output).resolve()
    return os.path.relpath(folder, Path.cwd()) + os.sep, base, folder


def configured_file(defaults: dict, base: Path) -> str | None:
    """`output = "FILE"` of pyproject.toml (or `-`) as the command line would give it: a file name
    taken from the pyproject.toml's directory, as a folder is (`configured_output`), wherever the
    command runs (it was taken from the working directory: a run from a subfolder wrote there)."""
    output = defaults.get("output")
    if not isinstance(output, str) or output == "-":
        return output
    return os.path.relpath(base / output, Path.cwd())


def output_folder(output: str | None) -> Path | None:
    """The folder `-o DIR/` names, resolved; None for any other `-o`."""
    return Path(output).resolve() if output and output != "-" and is_dir_target(output) else None


def stays_in(target: Path, output: str | None) -> bool:
    """Does `target`, a default output under build/ (no `output`), stay there once every symlink
    on its way is followed (a link to a file, or a folder on the way linked elsewhere, or a link
    to nothing yet: ux3 review)? Written with no question only then."""
    if output:
        return True
    build = os.path.realpath(target.parts[0]) if target.parts else ""
    return os.path.realpath(target).startswith(build + os.sep)


def folder_pattern(folder: Path, base: Path) -> str | None:
    """The exclude pattern (anchored at `base`) that leaves `folder` out of a walk; None for a
    folder outside `base`, which no walk from there reaches through the patterns."""
    try:
        return "/" + folder.relative_to(base.resolve()).as_posix() + "/"
    except ValueError:
        return None


def no_inputs_inside(folders: list[Path], files) -> None:
    """A usage error when an output folder is a directory given as input or holds one: its
    outputs would be walked as inputs by the next run (ux3 review: `output = "kernels/"`)."""
    for folder in folders:
        for arg in files:
            if str(arg) == "-" or not arg.is_dir():
                continue
            walked = arg.resolve()
            if walked == folder or folder in walked.parents:
                raise click.UsageError(f"the output folder {os.path.relpath(folder)}/ holds the input folder {arg}: "
                                       "give the outputs a folder of their own (-o DIR/, or `output` in "
                                       "[tool.pto-transpile])")
