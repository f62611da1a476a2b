"""`pto-transpile`: the command line. Thin: parse flags, call `transpile`, render, write, exit.

Exit status: 0 clean (warnings allowed); 1 errors found, `--simulate` found the pipelined
kernel wrong, or `--check` found that the `-o` file is missing or differs from what would be
generated; 2 usage error, unreadable input, unwritable output, or an internal error. A
closed stdout (`| head -1`) ends the run quietly with 141, as SIGPIPE ends Unix tools.

Whenever stdout carries data (the code with `-o -`, or json/sarif/github diagnostics),
everything else (tables, notes, "wrote" lines) goes to stderr. Each file's report is
printed when that file is done, in the order the files were given.

Only click and this package's light modules are imported up front: `--version` and
`--help` never load libcst, rich, numpy or the analysis.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from pto_transpile import __version__, codes
from pto_transpile.output.render import FORMATS

if TYPE_CHECKING:
    from pto_transpile.diagnostics import Diagnostic
    from pto_transpile.output.render import Sink
    from pto_transpile.read.discover import Input

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2
EXIT_STDOUT_CLOSED = 128 + 13  # what a shell reports for a process ended by SIGPIPE
REPORT_HINT = "this is a bug in pto-transpile; please report it with the input file"
#: Options that only mean something with --simulate (click parameter name -> flag).
SIMULATE_ONLY = {"seed": "--seed", "block_dim": "--block-dim", "shapes": "--shape", "scalars": "--arg",
                 "timeline": "--timeline", "report": "--report", "gantt": "--gantt"}


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

    @property
    def simulates(self) -> bool:
        """--simulate, or a picture (--report, --gantt) of the kernel --preload auto chose."""
        from pto_transpile.preload import Auto

        return self.simulate or (isinstance(self.preload, Auto) and (self.report is not None or self.gantt))

    @property
    def to_stdout(self) -> bool:
        return any(t is None for t in self.targets) and not (self.check or self.show_diff)

    @property
    def notes_stream(self):
        """Where tables and notes go: stderr whenever stdout carries data."""
        return sys.stderr if self.to_stdout or self.fmt != "text" else sys.stdout

    @property
    def diagnostics_stream(self):
        """stderr when stdout carries the code or a diff (so `--diff | patch` reads only the diff)."""
        return sys.stderr if self.to_stdout or self.show_diff else sys.stdout


def _codes(values) -> list[str]:
    if isinstance(values, str):
        values = [values]
    out = []
    for v in values or ():
        out += [c.strip() for c in str(v).split(",") if c.strip()]
    return out


def _tool_diagnostic(code: str, path: str, detail: str, line: int = 1, **fields) -> Diagnostic:
    """A problem of a file as a whole, or of the run (PTO002, PTO094, PTO095, PTO098)."""
    from pto_transpile.rules import registry

    return registry()[code].diagnostic({"path": path, "detail": detail, **fields}, path, line, 1, line, 1)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="pto-transpile", message="%(prog)s %(version)s")
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--preload", "preload", default=None, help="N (all loops), N,M,... (one per pipeline loop) or auto "
                                                         "(fewest simulated cycles); overrides the kernel's "
                                                         "PipelineConfig.")
@click.option("-o", "--output", "output", default=None, help="Output file, '-' for stdout, or a directory (each "
                                                             "input at its relative path). Default: "
                                                             "build/<stem>/pipeline_generated.py.")
@click.option("--check", is_flag=True, help="Report problems and write nothing (with -o: exit 1 if that file is "
                                            "missing or out of date).")
@click.option("--diff", "show_diff", is_flag=True, help="Print what writing would change instead of writing (against "
                                                        "the -o file, else against the input).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Diagnostic format (default: text).")
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
@click.option("--seed", default=0, show_default=True, help="Input seed for --simulate.")
@click.option("--block-dim", default=1, show_default=True, help="Blocks for --simulate.")
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
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Files transpiled at once (default: the "
                                                                             "number of CPUs); output stays in file "
                                                                             "order.")
@click.pass_context
def main(ctx, files, preload, output, check, show_diff, fmt, color, select, ignore, explain, provenance, simulate,
         seed, block_dim, shapes, scalars, timeline, report, gantt, jobs):
    """Turn serial cube/vector PyPTO kernels into pipelined kernels, with every sync inserted.

    FILES are kernel files, directories (every *.py file under them, less the excludes of
    [tool.pto-transpile]) or - for standard input."""
    from pto_transpile.diagnostics import InternalError

    try:
        if explain:
            code = _explain(explain)
        else:
            run = _settings(files, preload, output, check, show_diff, fmt, color, select, ignore, provenance,
                            simulate, seed, block_dim, shapes, scalars, timeline, jobs)
            run = _pictures(run, report, gantt)
            _simulate_only_options(ctx, run)
            code = _main(run)
    except click.UsageError:
        raise
    except BrokenPipeError:
        code = _stdout_closed()
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

def _settings(files, preload, output, check, show_diff, fmt, color, select, ignore, provenance, simulate, seed,
              block_dim, shapes, scalars, timeline, jobs=None) -> Run:
    if not files:
        raise click.UsageError("no input file given (try: pto-transpile kernel.py --preload 2)")
    defaults, base = _defaults(files)
    inputs = _inputs(files, defaults, base)
    preload = _preload(preload, defaults, seed, block_dim, shapes, scalars)
    fmt = fmt or defaults.get("format", "text")
    if fmt not in FORMATS:
        raise click.UsageError(f"unknown format {fmt!r} in pyproject.toml")
    select = _codes(select) or _codes(defaults.get("select", []))
    ignore = _codes(ignore) or _codes(defaults.get("ignore", []))
    _check_filters(select, ignore)
    output = output or defaults.get("output")
    targets = _targets(inputs, output, show_diff)
    if timeline is not None and timeline.is_dir():
        raise click.UsageError(f"--timeline: {timeline} is a directory; give a file name")
    from pto_transpile.output.files import cpu_count
    from pto_transpile.output.render.text import wants_color

    run = Run(tuple(inputs), tuple(targets), preload, output, check, show_diff, fmt, False, select, ignore,
              provenance, simulate, seed, block_dim, tuple(shapes), tuple(scalars), timeline, jobs or cpu_count())
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


def _inputs(files, defaults: dict, base: Path) -> list[Input]:
    from pto_transpile.output.config import exclude_patterns
    from pto_transpile.read.discover import expand
    from pto_transpile.read.excludes import DEFAULT_EXCLUDES, Excludes

    inputs = expand(files, Excludes(exclude_patterns(defaults, DEFAULT_EXCLUDES)), base)
    if sum(item.is_stdin for item in inputs) > 1:
        raise click.UsageError("- (standard input) can be given once")
    if not inputs:
        raise click.UsageError(f"no Python files under {', '.join(map(str, files))} (after the excludes of "
                               "[tool.pto-transpile])")
    return inputs


def _preload(preload, defaults, seed, block_dim, shapes, scalars):
    from pto_transpile.preload import Auto, parse_preload

    try:
        value = parse_preload(preload) if preload is not None else _default_preload(defaults.get("preload"))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--preload") from None
    if isinstance(value, Auto):  # the simulated runs that choose take --simulate's settings
        from pto_transpile.simulate.compare import parse_scalars, parse_shapes

        value = Auto(seed, block_dim, parse_shapes(shapes), parse_scalars(scalars))
    return value


def _pictures(run: Run, report: Path | None, gantt: bool) -> Run:
    """`run` with --report and --gantt, which draw one file's simulated runs."""
    if report is not None:
        if len(run.inputs) > 1:
            raise click.UsageError("--report takes one input file; run once per file")
        if report.is_dir():
            raise click.UsageError(f"--report: {report} is a directory; give a file name")
    return replace(run, report=report, gantt=gantt)


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


def _targets(inputs: list[Input], output: str | None, show_diff: bool) -> list[Path | None]:
    from pto_transpile.output.write import RefusedWrite, check_target, is_dir_target, output_targets

    if output == "-" and show_diff:
        raise click.UsageError("--diff prints a diff, -o - prints the code: choose one")
    several = len(inputs) > 1
    if output and several and (output == "-" or not is_dir_target(output)):
        raise click.UsageError("-o FILE (or -) takes one input file; give a directory (-o DIR/) for several")
    if output and output != "-" and is_dir_target(output) and any(item.is_stdin for item in inputs):
        raise click.UsageError("- (standard input) has no path to keep under -o DIR/; give -o FILE or -o -")
    targets = output_targets(inputs, output, Path.cwd())
    named = [t for t in targets if t is not None]
    if output != "-" and len(set(named)) < len(named):
        raise click.UsageError("two inputs would be written to the same file; give -o DIR/")
    for item, target in zip(inputs, targets, strict=True):
        if target is None:
            continue
        try:
            check_target(target, input_path=None if item.is_stdin else item.path)
        except RefusedWrite as exc:
            raise click.UsageError(str(exc)) from None
    return targets


# -- the run ----------------------------------------------------------------------------------

def _main(run: Run) -> int:
    from pto_transpile import driver
    from pto_transpile.output.files import transpile_files
    from pto_transpile.output.render import Sink
    from pto_transpile.preload import Auto

    sink = Sink(run.fmt, run.diagnostics_stream, run.color)
    if run.simulate and run.timeline is not None and not run.timeline.resolve().parent.is_dir():
        sink.file([_tool_diagnostic(codes.UNWRITABLE_OUTPUT, str(run.timeline),
                                    f"directory {run.timeline.parent} does not exist")], {})
        sink.close()
        return EXIT_USAGE
    # --provenance and --simulate read the whole result (syntax trees) and --preload auto
    # prints as it goes: those runs stay in this process; any other may spread its files
    jobs = 1 if run.provenance or run.simulates or isinstance(run.preload, Auto) else run.jobs
    options = (run.preload, tuple(run.select), tuple(run.ignore))
    status = EXIT_OK
    if isinstance(run.preload, Auto):  # the one path that runs the kernel file's Python (on the emulator)
        from pto_transpile.simulate.autopreload import transpile_choosing

        outcomes = transpile_files(run.inputs, options, jobs, transpile_choosing)
    else:
        outcomes = transpile_files(run.inputs, options, jobs, driver.transpile)
    for item, target, outcome in zip(run.inputs, run.targets, outcomes, strict=True):
        status = max(status, _one_file(run, item, target, outcome, sink))
    sink.close()
    return status


def _one_file(run: Run, item: Input, target: Path | None, outcome, sink: Sink) -> int:
    """Report, simulate, compare or write one input; its exit status."""
    from pto_transpile.output.files import Unreadable

    notes = run.notes_stream
    if isinstance(outcome, Unreadable):
        sink.file([_tool_diagnostic(codes.UNREADABLE_FILE, item.name, outcome.reason)], {})
        return EXIT_USAGE
    text, result = outcome
    if item.walked and _nothing_to_do(result):
        return EXIT_OK  # a Python file without a kernel, found by walking a directory
    sources = {item.name: text}
    if result.preload_choice is not None:
        click.echo(f"{item.name}:\n{result.preload_choice.render()}", nl=False, file=notes)
    sink.file(result.diagnostics, sources)
    if any(d.code == codes.INTERNAL_ERROR for d in result.diagnostics):
        return EXIT_USAGE
    if not result.ok:
        status = EXIT_ERRORS
        if run.report is not None and not _report(run, item, text, result, None, sink):
            status = EXIT_USAGE
        if result.hidden_errors:
            click.echo(f"pto-transpile: {item.name}: {result.hidden_errors} error(s) not shown (filtered by "
                       "--select/--ignore); nothing was written", file=notes)
        return status
    code = result.code
    assert code is not None  # no error: the kernel was written
    if run.provenance:
        from pto_transpile.simulate.provenance import explain_syncs, render_provenance

        click.echo(render_provenance(explain_syncs(result)), nl=False, file=notes)
    if run.simulates:
        status = _simulate(run, item, text, result, target, sink)
        if status != EXIT_OK:
            return status
    if run.show_diff:
        return _diff(run, item, text, code, target, sink)
    if run.check:
        return _check_output(run, code, target, sink)
    return _write(run, item, code, target, sink)


def _nothing_to_do(result) -> bool:
    """No kernel in the file (the note says so, whether --select/--ignore shows it or not)."""
    found = result.diagnostics + result.hidden
    return bool(found) and all(d.code == codes.NO_KERNEL for d in found)


def _write(run: Run, item: Input, code: str, target: Path | None, sink: Sink) -> int:
    from pto_transpile.output.write import RefusedWrite, write_output

    if target is None:
        click.echo(code, nl=False)
        return EXIT_OK
    try:
        write_output(target, code, input_path=None if item.is_stdin else item.path)
    except RefusedWrite as exc:
        raise click.UsageError(str(exc)) from None
    except OSError as exc:
        sink.file([_tool_diagnostic(codes.UNWRITABLE_OUTPUT, str(target), exc.strerror or str(exc))], {})
        return EXIT_USAGE
    click.echo(f"wrote {target}", file=run.notes_stream)
    return EXIT_OK


def _current(target: Path) -> str | None:
    """The text now in `target` as it is on disk (line endings untranslated), or None when
    there is none (or it cannot be read as text)."""
    try:
        with open(target, encoding="utf-8", newline="") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def _check_output(run: Run, code: str, target: Path | None, sink: Sink) -> int:
    """`--check -o`: a PTO094 record when the output file is missing or out of date."""
    if not (run.output and target is not None):
        return EXIT_OK
    stale = _staleness(target, code)
    if stale is None:
        return EXIT_OK
    detail, line, current = stale
    sink.file([_tool_diagnostic(codes.OUTPUT_OUT_OF_DATE, str(target), detail, line)],
              {str(target): current} if current else {})
    return EXIT_ERRORS


def _staleness(target: Path, code: str) -> tuple[str, int, str | None] | None:
    """(why `target` is out of date, the first line that differs, its text), or None when current."""
    if not target.exists():
        return "does not exist", 1, None
    current = _current(target)
    if current is None:
        return "cannot be read as UTF-8 text", 1, None
    if current == code:
        return None
    ours, theirs = code.splitlines(keepends=True), current.splitlines(keepends=True)
    pairs = enumerate(zip(ours, theirs, strict=False), 1)
    line = next((i for i, (a, b) in pairs if a != b), min(len(ours), len(theirs)) + 1)
    return f"is out of date (first difference at line {line})", min(line, max(1, len(theirs))), current


def _diff(run: Run, item: Input, text: str, code: str, target: Path | None, sink: Sink) -> int:
    """Print the change writing would make; with --check, 1 (and a PTO094 record) when the
    -o file would change."""
    import difflib

    if run.output and target is not None:
        before, name = _current(target) or "", str(target)
    else:
        before, name = text, item.name
    click.echo("".join(difflib.unified_diff(before.splitlines(keepends=True), code.splitlines(keepends=True),
                                            fromfile=name, tofile=f"{name} (pipelined)")), nl=False)
    if run.check:
        return _check_output(run, code, target, sink)
    return EXIT_OK


def _explain(code: str) -> int:
    from pto_transpile.rules import registry
    from pto_transpile.rules.base import unfilled

    rules = registry()
    wanted = code.strip().upper()
    rule = rules.get(wanted) or next((r for r in rules.values() if r.name == code.strip().lower()), None)
    if rule is None:
        raise click.UsageError(f"unknown rule {code!r}; codes run from {min(rules)} to {max(rules)}")
    click.echo(f"{rule.code} {rule.name}: {rule.title}\n")
    click.echo(f"severity: {rule.severity.value}")
    if rule.seed:
        click.echo(f"constraint: {rule.seed}")
    click.echo(f"message: {unfilled(rule.message)}\nhint: {rule.help_text}\n")
    if rule.doc:
        click.echo(rule.doc.strip() + "\n")
    return EXIT_OK


def _simulate(run: Run, item: Input, serial: str, result, target: Path | None, sink: Sink) -> int:
    """Run the emulator (and draw --report/--gantt); a PTO095 record per kernel it finds
    wrong (exit 1), PTO098 for an unwritable --timeline or --report (exit 2). A usage
    mistake of its options raises click.UsageError."""
    from pto_transpile.simulate.compare import simulate_and_report

    generated_name = str(target) if target is not None else "<stdout>"
    try:
        outcome = simulate_and_report(item.path, serial, result, generated_path=generated_name, seed=run.seed,
                                      block_dim=run.block_dim, shapes=run.shapes, timeline=run.timeline,
                                      scalars=run.scalars, stream=run.notes_stream, gantt=run.gantt)
    except OSError as exc:
        if run.timeline is None:
            raise
        sink.file([_tool_diagnostic(codes.UNWRITABLE_OUTPUT, str(run.timeline), exc.strerror or str(exc))], {})
        return EXIT_USAGE
    if run.report is not None and not _report(run, item, serial, result, outcome, sink):
        return EXIT_USAGE
    if not outcome.failures:
        return EXIT_OK
    written = "nothing was written" if run.check or run.show_diff else (
        f"{target if target is not None else 'the code'} was not written")
    sink.file([_tool_diagnostic(codes.SIMULATION_FAILED, item.name, f.verdict, f.line, kernel=f.kernel,
                                version=f.version, written=written) for f in outcome.failures], {item.name: serial})
    return EXIT_ERRORS


def _report(run: Run, item: Input, text: str, result, outcome, sink: Sink) -> bool:
    """Write --report; False (and a PTO098 record) when it cannot be written."""
    from pto_transpile.output.render import renderer
    from pto_transpile.output.report import render_report

    assert run.report is not None
    page = render_report(item.name, text, result.code, renderer("text")(result.diagnostics, {item.name: text}),
                         outcome.kernels if outcome is not None else [], result.preload_choice)
    try:
        run.report.write_text(page, encoding="utf-8")
    except OSError as exc:
        sink.file([_tool_diagnostic(codes.UNWRITABLE_OUTPUT, str(run.report), exc.strerror or str(exc))], {})
        return False
    click.echo(f"report written to {run.report}", file=run.notes_stream)
    return True


if __name__ == "__main__":  # pragma: no cover
    main()
