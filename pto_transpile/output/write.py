"""Writing outputs: never over the input, never replacing what is not a regular file.

A regular file (or a new one) is written through a temporary file and a rename, so a
reader never sees half a kernel; it gets the mode a plain write would give (the umask
applies), or keeps the mode of the file it replaces. A symlink is written through: the
file it points to is replaced, the link stays. Anything else that already exists there
(/dev/null, /dev/stdout, a FIFO) is opened and written into; renaming over it would
replace a device node with a regular file.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from pto_transpile.read.mark import PREFIX, written_by_us


class RefusedWrite(Exception):
    """The target is one pto-transpile will not write: the input file, or a directory."""


def default_output(input_path: Path, cwd: Path) -> Path:
    """`build/<path relative to cwd without .py>/pipeline_generated.py`: it depends on the
    file alone, never on the other inputs, so per-file runs and one batch run agree."""
    return Path("build") / _relative_key(input_path, cwd).with_suffix("") / "pipeline_generated.py"


def check_target(target: Path, *, input_path: Path | None = None, replace_foreign: bool = True) -> None:
    """RefusedWrite when `target` is a directory or the input file itself, or, unless
    `replace_foreign`, a file of someone else's: a regular file with no pto-transpile mark."""
    if target.is_dir():
        raise RefusedWrite(f"{target} is a directory; give a file name")
    if input_path is not None and target.exists() and input_path.exists() and os.path.samefile(target, input_path):
        raise RefusedWrite(f"refusing to overwrite the input file {input_path}")
    if not replace_foreign and foreign(target, input_path):
        raise RefusedWrite(f"refusing to replace {target}: it exists and pto-transpile did not write it (it has no "
                           f"`{PREFIX.strip()}...` mark); give --force to replace it")


def foreign(target: Path, input_path: Path | None) -> bool:
    """Is `target` an existing regular file pto-transpile did not write: no mark in it, and not
    the input's text as it is (what a file with no kernel to pipeline is written as)? A file it
    cannot stat or read is left to the write, which says why."""
    try:
        if not stat.S_ISREG(os.stat(target).st_mode):
            return False  # (a device, a FIFO: written into, never replaced)
        text = Path(target).read_bytes()
        return not written_by_us(text) and (input_path is None or text != Path(input_path).read_bytes())
    except OSError:
        return False


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same file where both exist (links included), the
    same resolved path where one does not yet."""
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return Path(os.path.realpath(a)) == Path(os.path.realpath(b))


def write_output(target: Path, text: str, *, input_path: Path | None = None) -> None:
    """Write `text` to `target` (see the module doc); OSError when the environment refuses."""
    check_target(target, input_path=input_path)
    try:
        existing = os.stat(target)  # follows a symlink to what it points to
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        with open(target, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        return
    real = Path(os.path.realpath(target))
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
    real.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, real)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def marked_output(path: Path) -> bool:
    """Is `path` a regular file holding pto-transpile's mark (an output it wrote)? A file it
    cannot stat or read is not one it can tell."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode) and written_by_us(Path(path).read_bytes())
    except OSError:
        return False


def holds_already(target: Path, text: str) -> bool:
    """Is `target` a regular file holding `text` byte for byte (as `write_output` writes it)?
    Then a write would change nothing but its time stamp, which make-style tools and a log of
    what a run changed read as a change."""
    try:
        return stat.S_ISREG(os.stat(target).st_mode) and Path(target).read_bytes() == text.encode("utf-8")
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0o022)  # the only portable way to read it is to set it
    os.umask(mask)
    return mask


def output_targets(inputs: list, output: str | None, cwd: Path, keys_from: Path | None = None) -> list[Path | None]:
    """Where each input's kernel goes (None: stdout), in input order.

    `-o -` prints, `-o FILE` takes one input, `-o DIR` (an existing directory, or a name
    ending in `/`) gets each output at the input's path relative to the working directory
    (to `keys_from`, pyproject.toml's directory, for its `output`). By default an input goes
    to `default_output`. Stdin goes to stdout unless `-o` says."""
    if output == "-":
        return [None] * len(inputs)
    if output is not None:
        if is_dir_target(output):
            # (standard input has no path to keep there: with pyproject.toml's `output` it goes where
            # it goes without one, to stdout)
            return [None if item.is_stdin and keys_from is not None else
                    Path(output) / _relative_key(item.path, keys_from if keys_from is not None else cwd)
                    for item in inputs]
        return [Path(output)] * len(inputs)
    return [None if item.is_stdin else default_output(item.path, cwd) for item in inputs]


def mirrored_folders(folders: list[Path], output: str | None, cwd: Path, keys_from: Path | None = None
                     ) -> tuple[tuple[Path, Path], ...]:
    """(the folder under `-o DIR/` (or pyproject.toml's `output`, `keys_from` its directory) where
    the outputs of the inputs found in a folder of `folders` go (`output_targets`), that folder);
    none without an output directory. A folder given on the command line whose outputs fill the
    whole of `-o DIR/` (a walk of the working directory) is left out: other folders' runs may
    share DIR (ux3 review), while pyproject.toml's `output` is the project's own."""
    if output is None or output == "-" or not is_dir_target(output):
        return ()
    out = []
    for folder in folders:
        mirror = Path(output) / _relative_key(folder, keys_from if keys_from is not None else cwd)
        if keys_from is None and os.path.realpath(mirror) == os.path.realpath(output):
            continue
        out.append((mirror, folder))
    return tuple(out)


def is_dir_target(output: str) -> bool:
    """`-o DIR`: an existing directory, or a name ending in a separator."""
    return output.endswith(("/", os.sep)) or Path(output).is_dir()


def _relative_key(path: Path, cwd: Path) -> Path:
    """`path` relative to `cwd`; a path outside it keeps its absolute parts below the root. A
    path that reaches `cwd` through a symlink (`"$PWD/kernels"` in a checkout reached by one) is
    inside it: compared resolved too (a CI step's absolute paths put outputs under `gen/tmp/...`)."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(cwd)
    except ValueError:
        pass
    try:
        return Path(os.path.realpath(absolute.parent)).relative_to(os.path.realpath(cwd)) / absolute.name
    except ValueError:
        return Path(*absolute.parts[1:])
