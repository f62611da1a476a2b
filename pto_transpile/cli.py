"""`pto-transpile`: the command line. It parses the options (with pyproject.toml's defaults)
into the settings of one run and hands them to `output/run.py`, which reports, simulates,
checks or writes each file and returns the exit status (0 clean, 1 errors, 2 usage error,
unreadable input, unwritable output or internal error; 141 when stdout closes early).

Only click and this package's light modules are imported up front: `--version` and
`--help` never load libcst, rich, numpy or the analysis.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from pto_transpile import __version__
from pto_transpile.output.refusal import Refused
from pto_transpile.output.render import FORMATS
from pto_transpile.output.settings import EXIT_OK, EXIT_USAGE, Run

if TYPE_CHECKING:
    from pto_transpile.read.discover import Input

EXIT_STDOUT_CLOSED = 128 + 13  # what a shell reports for a process ended by SIGPIPE
EXIT_INTERRUPTED = 128 + 2  # what a shell reports for a process ended by SIGINT (Ctrl-C)
REPORT_HINT = "this is a bug in pto-transpile; please report it with the input file"
#: Options that only mean something with --simulate (click parameter name -> flag).
SIMULATE_ONLY = {"seed": "--seed", "block_dim": "--block-dim", "shapes": "--shape", "scalars": "--arg",
                 "timeline": "--timeline", "report": "--report", "gantt": "--gantt"}


def _codes(values) -> list[str]:
    if isinstance(values, str):
        values = [values]
    out = []
    for v in values or ():
        out += [c.strip() for c in str(v).split(",") if c.strip()]
    return out


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="pto-transpile", message="%(prog)s %(version)s")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--preload", "preload", default=None, help="N (all loops), N,M,... (one per pipeline loop) or auto "
                                                         "(fewest simulated cycles); overrides the kernel's "
                                                         "PipelineConfig.")
@click.option("-o", "--output", "output", default=None, help="Output file, '-' for stdout, or a directory (each "
                                                             "input at its relative path). Default: "
                                                             "build/<path>/pipeline_generated.py, <path> being the "
                                                             "input's relative path without .py.")
@click.option("--check", is_flag=True, help="Report problems and write nothing (with -o: exit 1 if that file is "
                                            "missing or out of date).")
@click.option("--diff", "show_diff", is_flag=True, help="Print what writing would change instead of writing (against "
                                                        "the -o file, else against the input).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Diagnostic format (default: text). The report goes to stdout, or to stderr when stdout carries "
                   "the code (-o -; - without -o in text) or a diff (--diff); json, sarif and github never print "
                   "the code of - without -o.")
@click.option("--color", "color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the text report; auto: on a terminal (FORCE_COLOR or NO_COLOR in the environment "
                   "decide otherwise).")
@click.option("--select", multiple=True, help="Only report these codes (comma-separated; prefixes allowed).")
@click.option("--ignore", multiple=True, help="Do not report these codes (comma-separated; prefixes allowed).")
@click.option("--explain", "explain", metavar="CODE", default=None, help="Print the documentation of a rule and exit.")
@click.option("--provenance", is_flag=True, help="Print why each inserted sync is there (edge, producer and consumer "
                                                 "lines).")
@click.option("--simulate", is_flag=True, help="Run serial and generated kernel on the emulated NPU and compare; "
                                               "nothing is written when they differ.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0), help="Input seed for --simulate.")
@click.option("--block-dim", default=1, show_default=True, type=click.IntRange(min=1),
              help="Blocks for --simulate (at most 512, what the emulator launches).")
@click.option("--shape", "shapes", multiple=True, metavar="NAME=D0xD1", help="Shape of a tensor whose declared "
                                                                             "dimensions include pl.DYNAMIC, for "
                                                                             "--simulate.")
@click.option("--arg", "scalars", multiple=True, metavar="NAME=VALUE", help="Value of a scalar kernel parameter for "
                                                                            "--simulate.")
@click.option("--timeline", type=click.Path(path_type=Path), default=None, help="Write a Chrome/Perfetto trace of the "
                                                                                "generated kernel (--simulate).")
@click.option("--report", type=click.Path(path_type=Path), default=None, metavar="FILE.html",
              help="Write one self-contained HTML page: serial and pipelined timelines per pipeline loop, the bound, "
                   "the --preload auto candidates, the diagnostics and the diff (--simulate or --preload auto).")
@click.option("--gantt", is_flag=True, help="Draw the serial and pipelined runs in the terminal, a row per core "
                                            "(--simulate or --preload auto).")
@click.option("--force-exclude", is_flag=True, help="Leave out the files named on the command line that the "
                                                    "excludes of [tool.pto-transpile] leave out (for a pre-commit "
                                                    "hook, which names every staged file).")
@click.option("--force", is_flag=True, help="Replace an output file pto-transpile did not write (one with no "
                                            "`# Written by pto-transpile` mark); without it, such a file is left "
                                            "alone.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Processes to use (default: the number of "
                                                                             "CPUs): files transpiled at once, or the "
                                                                             "runs of one file's proof when it has "
                                                                             "many; output stays in file order.")
@click.option("-q", "--quiet", is_flag=True, help="Do not print a line for each file written or left unchanged "
                                                 "(the report, notes and --simulate's results are printed).")
@click.option("--warnings-as-errors", is_flag=True, help="Report every warning shown as an error: exit status 1, and "
                                                         "nothing is written for its file.")
@click.pass_context
def main(ctx, files, preload, output, check, show_diff, fmt, color, select, ignore, explain, provenance, simulate,
         seed, block_dim, shapes, scalars, timeline, report, gantt, jobs, force_exclude, force, quiet,
         warnings_as_errors):
    """Turn serial cube/vector PyPTO kernels into pipelined kernels, with every sync inserted.

    FILES are kernel files, directories (every *.py file under them, less the excludes of
    [tool.pto-transpile]) or - for standard input."""
    from pto_transpile.diagnostics import InternalError

    if sys.stdout is None:  # started with stdout closed (`>&-`): nowhere to print the report or the kernel
        click.echo("pto-transpile: standard output is closed; nothing was done", err=True)
        ctx.exit(EXIT_USAGE)
    try:
        if explain:
            code = _explain(explain)
        else:
            from pto_transpile.output.run import run_files

            run = _settings(files, preload, output, check, show_diff, fmt, color, select, ignore, provenance,
                            simulate, seed, block_dim, shapes, scalars, timeline, jobs, report, force_exclude,
                            force, warnings_as_errors)
            run = replace(_pictures(run, report, gantt), quiet=quiet)
            _simulate_only_options(ctx, run)
            code = run_files(run)
    except OverInput as exc:
        if not exc.silent:
            click.echo(f"Error: {exc.format_message()}", err=True)
        code = EXIT_USAGE
    except click.UsageError as exc:
        if fmt in ("json", "sarif"):  # a CI step parsing stdout gets a document saying why (study ux1)
            from pto_transpile.output.render.usage import usage_document

            hint = "" if isinstance(exc, Refused) else "See `pto-transpile --help`"  # (its message says what to do)
            click.echo(usage_document(fmt, exc.format_message(), hint), nl=False)
        raise
    except click.exceptions.Exit:
        raise
    except BrokenPipeError:
        code = _stdout_closed()
    except KeyboardInterrupt:
        click.echo("pto-transpile: interrupted; nothing more was written", err=True)
        code = EXIT_INTERRUPTED
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EIO, errno.EBADF, errno.EDQUOT):
            click.echo(f"pto-transpile: internal error: {type(exc).__name__}: {exc}\nhint: {REPORT_HINT}", err=True)
        else:  # a full disk or a standard output that takes nothing (`> /dev/full`): not a bug
            click.echo(f"pto-transpile: cannot write the output: {exc.strerror or exc}", err=True)
        code = EXIT_USAGE
    except InternalError as exc:
        click.echo(f"pto-transpile: internal error: {exc}\nhint: {REPORT_HINT}", err=True)
        code = EXIT_USAGE
    except Exception as exc:  # never a traceback for the user
        click.echo(f"pto-transpile: internal error: {type(exc).__name__}: {exc}\nhint: {REPORT_HINT}", err=True)
        code = EXIT_USAGE
    ctx.exit(code)


def _simulate_only_options(ctx, run: Run) -> None:
    from pto_transpile.preload import Auto

    auto = isinstance(run.preload, Auto)
    for name, flag in SIMULATE_ONLY.items():
        allowed = run.simulate or (auto and name != "timeline")
        if not allowed and ctx.get_parameter_source(name) is not ParameterSource.DEFAULT:
            raise click.UsageError(f"{flag} only applies with --simulate" + ("" if name == "timeline" else
                                                                             " or --preload auto"))


def _stdout_closed() -> int:
    """The reader of stdout went away: stop quietly, and keep Python's exit-time flush of
    the dead pipe from printing an error of its own."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file descriptor (a test runner's buffer): nothing to flush
    return EXIT_STDOUT_CLOSED


# -- settings ---------------------------------------------------------------------------------

def _is_stdout(path: str) -> bool:
    """Does `path` name the file standard output writes to (`/dev/stdout`, `/dev/fd/1`)?"""
    return _is_stream(sys.stdout, path)


def _is_stream(stream, path) -> bool:
    """Does `path` name the file behind `stream` (standard input or output)?"""
    return _same_file_stat(lambda: os.fstat(stream.fileno()), lambda: os.stat(path))


class OverInput(click.UsageError):
    """A run that would write into its own input through a standard stream: refused before
    anything is written, its message on standard error unless that is the input too (`silent`),
    never on standard output (no JSON document there either)."""

    def __init__(self, message: str, silent: bool = False) -> None:
        super().__init__(message)
        self.silent = silent


def _streams_not_inputs(inputs: list[Input], paths: list[Path | None]) -> None:
    """UsageError where standard output or standard error is an input file (the code, a report,
    a diff or a note would be written into it), or where a file the run writes (`paths`: each
    kernel's output, `--timeline`, `--report`) is the file standard input (an input `-`) is read
    from (probes h254, h255: `-o in.py 1<>in.py`, `--diff >> in.py`, `- < in.py 1<>in.py`, `-
    --timeline /dev/stdin < in.py` each wrote into or replaced the input, exit 0)."""
    for item in inputs:
        for stream, name in ((sys.stdout, "standard output"), (sys.stderr, "standard error")):
            if _same_stream_file(sys.stdin, stream) if item.is_stdin else _is_stream(stream, item.path):
                what = "the file standard input is read from" if item.is_stdin else f"the input file {item.path}"
                raise OverInput(f"refusing to write over the input: {name} is {what}; redirect it to another "
                                "file", silent=stream is sys.stderr)
        if item.is_stdin and any(p is not None and _is_stream(sys.stdin, p) for p in paths):
            raise click.UsageError("refusing to overwrite the input: a file the run writes is the file standard "
                                   "input is read from; give another file")


def _same_stream_file(a, b) -> bool:
    """Are two streams one regular file (`< k.py 1<>k.py`)?"""
    return _same_file_stat(lambda: os.fstat(a.fileno()), lambda: os.fstat(b.fileno()), regular=True)


def _same_file_stat(first, second, regular: bool = False) -> bool:
    """Do the two stats (taken by the two calls) name one file (a regular one, if `regular`)? False
    where either cannot be taken: no such file, or a stream with no file behind it."""
    try:
        x, y = first(), second()
    except (OSError, ValueError, AttributeError):
        return False
    return (x.st_dev, x.st_ino) == (y.st_dev, y.st_ino) and (stat.S_ISREG(x.st_mode) or not regular)


def _settings(files, preload, output, check, show_diff, fmt, color, select, ignore, provenance, simulate, seed,
              block_dim, shapes, scalars, timeline, jobs=None, report=None, force_exclude=False,
              force=False, warnings_as_errors=False) -> Run:
    if not files:
        raise click.UsageError("no input file given (try: pto-transpile kernel.py --preload 2)")
    if output not in (None, "-") and not check and _is_stdout(output):
        # (`-o /dev/stdout`: the report then goes to stderr, not between the code's lines: probe h231; with
        # --check, the file is read, not written: probe h254, `--check -o out.py >> out.py` compared nothing)
        output = "-"
    defaults, base = _defaults(files)
    from pto_transpile.output import folders

    from_config = folders.configured_output(defaults, base)
    configured_output = from_config if output is None else None
    # the output folders, the project's and one -o names, are no inputs: a walk leaves them out
    # (a second run read its own outputs as inputs and refused to overwrite them: ux3 review)
    out_folders = [f for f in (from_config[2] if from_config else None, folders.output_folder(output)) if f is not None]
    folders.no_inputs_inside(out_folders, files)
    inputs = _inputs(files, defaults, base, force_exclude,
                     [p for f in out_folders if (p := folders.folder_pattern(f, base))],
                     frozenset(os.path.realpath(f) for f in out_folders))
    preload_value = _preload(preload, defaults, seed, block_dim, shapes, scalars)
    fmt = fmt or defaults.get("format", "text")
    if fmt not in FORMATS:
        raise click.UsageError(f"unknown format {fmt!r} in pyproject.toml")
    configured = {name for name, given in (("select", select), ("ignore", ignore), ("output", output))
                  if not given and defaults.get(name)}
    select = _codes(select) or _codes(defaults.get("select", []))
    ignore = _codes(ignore) or _codes(defaults.get("ignore", []))
    output = output or (configured_output[0] if configured_output else folders.configured_file(defaults, base))
    with _from_config(configured):
        _check_filters(select, ignore)
        # (the default build/ path is the tool's own; a file named by -o may be anyone's)
        targets = _targets(inputs, output, show_diff, replace_foreign=force or check or show_diff or not output,
                           keys_from=configured_output[1] if configured_output else None,
                           through_links=force or check or show_diff)
    if timeline is not None and timeline.is_dir():
        raise Refused(f"--timeline: {timeline} is a directory; give a file name")
    if timeline is not None and len(inputs) > 1:  # (probe h217: each file's run wrote over the last one's)
        raise click.UsageError("--timeline takes one input file; run once per file")
    _other_outputs(inputs, targets, {"--timeline": timeline, "--report": report})
    _streams_not_inputs(inputs, [timeline, report])
    from pto_transpile.output.files import cpu_count
    from pto_transpile.output.render.text import wants_color
    from pto_transpile.output.write import mirrored_folders

    run = Run(tuple(inputs), tuple(targets), preload_value, output, check, show_diff, fmt, False, select, ignore,
              provenance, simulate, seed, block_dim, tuple(shapes), tuple(scalars), timeline, jobs or cpu_count(),
              preload_is_default=preload is None,
              warnings_as_errors=warnings_as_errors or defaults.get("warnings-as-errors", False),
              mirrors=mirrored_folders([f for f in files if f.is_dir()], output, Path.cwd(),
                                       configured_output[1] if configured_output else None))
    # colour depends on where the report goes, which the settings above decide
    return replace(run, color=fmt == "text" and wants_color(color, run.diagnostics_stream))


def _defaults(files) -> tuple[dict, Path]:
    """The `[tool.pto-transpile]` table nearest the first input, and the directory it is in
    (the working directory when there is none): exclude patterns are relative to it."""
    from pto_transpile.output.config import load_defaults

    first = files[0]
    start = first if first.is_dir() else first.parent
    try:
        defaults, pyproject = load_defaults(start if str(first) != "-" and start.exists() else Path.cwd())
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    return defaults, (pyproject.parent if pyproject is not None else Path.cwd().resolve())


def _inputs(files, defaults: dict, base: Path, force_exclude: bool = False,
            outputs: tuple[str, ...] | list[str] = (), output_folders: frozenset[str] = frozenset()) -> list[Input]:
    from pto_transpile.output.config import exclude_patterns
    from pto_transpile.read.discover import expand
    from pto_transpile.read.excludes import DEFAULT_EXCLUDES, Excludes

    patterns = [*exclude_patterns(defaults, DEFAULT_EXCLUDES), *outputs]
    inputs = expand(files, Excludes(patterns), base, force_exclude, output_folders)
    if sum(item.is_stdin for item in inputs) > 1:
        raise click.UsageError("- (standard input) can be given once")
    if not inputs and force_exclude:  # every file named is excluded: nothing to do (a pre-commit hook)
        raise click.exceptions.Exit(EXIT_OK)
    if not inputs:
        raise click.UsageError(f"no Python files under {', '.join(map(str, files))} (after the excludes of "
                               "[tool.pto-transpile])")
    return inputs


def _preload(preload, defaults, seed, block_dim, shapes, scalars):
    from pto_transpile.preload import Auto, parse_preload

    try:
        value = parse_preload(preload) if preload is not None else _default_preload(defaults.get("preload"))
    except ValueError as exc:
        if preload is None:  # from pyproject.toml, not the command line
            raise click.UsageError(f"`preload` in [tool.pto-transpile] of pyproject.toml: {exc}") from None
        raise click.BadParameter(str(exc), param_hint="--preload") from None
    if isinstance(value, Auto):  # the simulated runs that choose take --simulate's settings
        from pto_transpile.simulate.compare import check_block_dim, parse_scalars, parse_shapes

        check_block_dim(block_dim)
        value = Auto(seed, block_dim, parse_shapes(shapes), parse_scalars(scalars))
    return value


def _pictures(run: Run, report: Path | None, gantt: bool) -> Run:
    """`run` with --report and --gantt, which draw one file's simulated runs."""
    if report is not None:
        if len(run.inputs) > 1:
            raise click.UsageError("--report takes one input file; run once per file")
        if report.is_dir():
            raise Refused(f"--report: {report} is a directory; give a file name")
    return replace(run, report=report, gantt=gantt)


@contextmanager
def _from_config(names: set[str]):
    """A usage error about a setting `[tool.pto-transpile]` gave (`names`), not the command
    line, is said of that table: it spoke of the flag (`--select`, `-o`) no one typed."""
    try:
        yield
    except click.UsageError as exc:
        flags = {"select": "--select", "ignore": "--ignore", "output": "-o"}
        said = exc.format_message()
        for name in sorted(names):
            flag = flags[name]
            if said.startswith(flag) or f"{flag} " in said or f"{flag}:" in said:
                raise click.UsageError(f"`{name}` in [tool.pto-transpile] of pyproject.toml: {said}") from None
        raise


def _default_preload(value):
    """`preload` from pyproject.toml: an int, a list, or the command line's "N,M" text."""
    from pto_transpile.preload import check_preload, parse_preload

    return parse_preload(value) if isinstance(value, str) else check_preload(value)


def _check_filters(select, ignore) -> None:
    from pto_transpile.driver import Selection

    try:
        Selection.parse(select, ignore)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def _targets(inputs: list[Input], output: str | None, show_diff: bool,
             replace_foreign: bool = True, keys_from: Path | None = None,
             through_links: bool = True) -> list[Path | None]:
    from pto_transpile.output.folders import stays_in
    from pto_transpile.output.write import RefusedWrite, check_target, is_dir_target, output_targets

    if output == "-" and show_diff:
        raise click.UsageError("--diff prints a diff, -o - prints the code: choose one")
    several = len(inputs) > 1
    if output and several and (output == "-" or not is_dir_target(output)):
        raise click.UsageError("-o FILE (or -) takes one input file; give a directory (-o DIR/) for several")
    if output and output != "-" and is_dir_target(output) and any(item.is_stdin for item in inputs) \
            and keys_from is None:
        raise click.UsageError("- (standard input) has no path to keep under -o DIR/; give -o FILE or -o -")
    targets = output_targets(inputs, output, Path.cwd(), keys_from)
    _streams_not_inputs(inputs, targets)
    named = [os.path.realpath(t) for t in targets if t is not None]  # (a symlinked folder: one file, ux3 review)
    if output != "-" and len(set(named)) < len(named):
        raise click.UsageError("two inputs would be written to the same file; give -o DIR/")
    for item, target in zip(inputs, targets, strict=True):
        if target is None:
            continue
        _not_an_input(target, inputs, f"the output of {item.path}")
        try:
            # a symlink in the tool's own build/ folder may point at anyone's file: that one is judged
            # as a file -o names is (ux3 review: an unmarked file outside build/ was overwritten)
            stays = through_links or stays_in(target, output)
            check_target(target, input_path=None if item.is_stdin else item.path,
                         replace_foreign=replace_foreign and stays)
        except RefusedWrite as exc:
            raise Refused(str(exc)) from None
        if not stays and not os.path.exists(target):  # (a link to nothing yet, outside build/)
            raise Refused(f"refusing to write {target}: it leads to {os.path.realpath(target)}, outside the build/ "
                          "folder; give --force to write there")
    return targets


def _not_an_input(target: Path, inputs: list[Input], what: str) -> None:
    """UsageError when `target` is one of the run's input files: an output never replaces one
    (`k.py out/k.py -o out/` would write k.py's kernel over the input out/k.py)."""
    from pto_transpile.output.write import same_file

    for item in inputs:
        if not item.is_stdin and same_file(target, item.path):
            raise click.UsageError(f"refusing to overwrite the input file {item.path} ({what})")


def _other_outputs(inputs: list[Input], targets: list[Path | None], named: dict[str, Path | None]) -> None:
    """UsageError when `--timeline` or `--report` names an input file, a kernel's output, or
    the file the other of the two writes: each would silently replace the other."""
    from pto_transpile.output.write import same_file

    for flag, path in named.items():
        if path is not None and str(path) == "-":
            raise click.UsageError(f"{flag} writes a file: give it a file name (- is not standard output here)")
    given = [(flag, path) for flag, path in named.items() if path is not None]
    for flag, path in given:
        _not_an_input(path, inputs, f"given to {flag}")
        if any(t is not None and same_file(path, t) for t in targets):
            raise click.UsageError(f"{flag} {path} is the file the generated kernel is written to; give another name")
    if len(given) == 2 and same_file(given[0][1], given[1][1]):
        raise click.UsageError(f"--timeline and --report both name {given[0][1]}; give each its own file")


def _explain(code: str) -> int:
    from pto_transpile.rules.explain import explain

    try:
        click.echo(explain(code))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    main()
